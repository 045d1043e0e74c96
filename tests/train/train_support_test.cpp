// The learner's parts that need no model: metrics, progress lines, the history CSV, the plot
// and best/early-stopping tracking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <locale>
#include <sstream>
#include <string>

#include "ember/ember.h"
#include "ember/train/early_stopping.h"
#include "ember/train/history.h"
#include "ember/train/metrics.h"
#include "ember/train/progress.h"
#include "support/suite_device.h"
#include "support/temp_dir.h"

namespace ember::train {
namespace {

TEST(Metrics, TopKCountsRowsWhoseTargetIsAmongTheKLargest) {
  // Row 0: target 2 is the largest; row 1: target 0 is second; row 2: target 1 is last.
  const TensorData logits(std::vector<double>{0.1, 0.2, 0.9, 0.5, 0.7, 0.1, 0.3, 0.1, 0.6},
                          Shape{3, 3});
  const TensorData targets(std::vector<int64_t>{2, 0, 1}, Shape{3});
  EXPECT_EQ(count_top_k_correct(logits, targets, 1), 1);
  EXPECT_EQ(count_top_k_correct(logits, targets, 2), 2);
  EXPECT_EQ(count_top_k_correct(logits, targets, 3), 3);
  EXPECT_THROW(count_top_k_correct(logits, TensorData(std::vector<int64_t>{0, 3, 1}, Shape{3}), 1),
               InvalidArgument);
}

TEST(Metrics, TiesAndNaNsCountAgainstTheTarget) {
  const double nan = std::nan("");
  // Row 0: every logit equal (all-zero weights); row 1: all NaN (NaN weights); row 2: target 0
  // tied with class 1 for the top; row 3: target 1 is the largest number, but class 2 is NaN.
  const TensorData logits(std::vector<double>{0, 0, 0, nan, nan, nan, 0.7, 0.7, 0.1, 0.2, 0.9, nan},
                          Shape{4, 3});
  const TensorData targets(std::vector<int64_t>{1, 0, 0, 1}, Shape{4});
  EXPECT_EQ(count_top_k_correct(logits, targets, 1), 0);
  // k = 2: row 2's target is within the top two with its tie; row 3's behind one NaN.
  EXPECT_EQ(count_top_k_correct(logits, targets, 2), 2);
  // k = 3 = C: every number is within the top three; a NaN target never is.
  EXPECT_EQ(count_top_k_correct(logits, targets, 3), 3);
}

TEST(Metrics, TopKRefusesBadShapesAndK) {
  const TensorData logits(std::vector<double>{0.1, 0.9}, Shape{1, 2});
  const TensorData target(std::vector<int64_t>{1}, Shape{1});
  EXPECT_THROW(count_top_k_correct(logits, target, 0), InvalidArgument);
  EXPECT_THROW(count_top_k_correct(TensorData(std::vector<double>{0.1, 0.9}, Shape{2}), target, 1),
               InvalidArgument);
  EXPECT_THROW(count_top_k_correct(logits, TensorData(std::vector<int64_t>{1, 0}, Shape{2}), 1),
               InvalidArgument);
}

TEST(Metrics, AConstantModelScoresZero) {
  // What `ember eval` of all-zero weights computes: every logit 0.
  const Device d = ember::test::suite_device();
  EpochMetrics metrics;
  metrics.update({Tensor<1>::from_floats({2.3}, d), Tensor<2>::zeros({3, 10}, d),
                  Tensor<1, Int>::from_ints({0, 4, 9}, d)});
  EXPECT_EQ(metrics.accuracy(), 0.0);
}

TEST(Metrics, EpochMetricsWeighLossesByBatchSize) {
  const Device d = ember::test::suite_device();
  EpochMetrics metrics(2);
  metrics.set_learning_rate(0.01);
  // Batch of 2 with loss 1.0 (one right), batch of 1 with loss 4.0 (right): mean loss 2.0.
  metrics.update({Tensor<1>::from_data(TensorData(std::vector<double>{1.0}, Shape{1}), d),
                  Tensor<2>::from_data(TensorData(std::vector<double>{1, 0, 0, 1}, Shape{2, 2}), d),
                  Tensor<1, Int>::from_ints({0, 0}, d)});
  metrics.update({Tensor<1>::from_data(TensorData(std::vector<double>{4.0}, Shape{1}), d),
                  Tensor<2>::from_data(TensorData(std::vector<double>{0, 1}, Shape{1, 2}), d),
                  Tensor<1, Int>::from_ints({1}, d)});
  EXPECT_EQ(metrics.items(), 3);
  EXPECT_DOUBLE_EQ(metrics.loss(), 2.0);
  EXPECT_DOUBLE_EQ(metrics.accuracy(), 2.0 / 3.0);
  const MetricValues values = metrics.values();
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values[2].first, "top2_accuracy");
  EXPECT_DOUBLE_EQ(values[2].second, 1.0);
  EXPECT_EQ(values[3], (std::pair<std::string, double>{"lr", 0.01}));
}

TEST(Progress, PlainOutputPrintsAtTenthsAndAtTheEnd) {
  std::ostringstream out;
  Progress progress(out, false);
  progress.start("epoch 1/1 train", 100);
  for (int64_t done = 1; done <= 100; ++done)
    progress.update(done, {{"loss", 0.5}});
  progress.finish({{"loss", 0.25}});
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 10);  // 10%, ..., 90%, then the end
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("epoch 1/1 train"), std::string::npos);
  EXPECT_NE(text.find("100/100 loss 0.2500"), std::string::npos) << text;
}

TEST(Progress, TerminalOutputRedrawsOneLine) {
  std::ostringstream out;
  Progress progress(out, true);
  progress.start("valid", 10);
  progress.update(5, {{"accuracy", 0.5}});
  progress.finish({{"accuracy", 0.75}});
  const std::string text = out.str();
  EXPECT_EQ(text.front(), '\r');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  EXPECT_NE(text.find("accuracy 0.7500"), std::string::npos);
}

TEST(History, CsvRoundTripsEveryValueExactly) {
  History history;
  history.add({1, "train", {{"loss", 0.1234567890123}, {"accuracy", 0.5}}});
  history.add({1, "valid", {{"loss", 1.0 / 3.0}}});
  history.add({2, "train", {{"loss", 0.05}}});
  const ::ember::test::TempDir dir_holder("ember-train-csv");
  const std::filesystem::path dir = dir_holder.path();
  history.write_csv(dir / "metrics.csv");
  const History back = History::read_csv(dir / "metrics.csv");
  EXPECT_EQ(back.value(1, "valid", "loss"), 1.0 / 3.0);
  EXPECT_EQ(back.value(1, "train", "loss"), 0.1234567890123);
  EXPECT_EQ(back.value(2, "train", "loss"), 0.05);
  EXPECT_FALSE(back.value(2, "valid", "loss").has_value());
  History truncated = back;
  truncated.truncate_after(1);
  EXPECT_FALSE(truncated.value(2, "train", "loss").has_value());
}

TEST(History, MalformedCsvNamesTheLine) {
  const ::ember::test::TempDir dir_holder("ember-train-bad_csv");
  const std::filesystem::path dir = dir_holder.path();
  std::ofstream(dir / "m.csv") << "epoch,split,metric,value\n1,train,loss,0.5\nx,train,loss,1\n";
  try {
    History::read_csv(dir / "m.csv");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("m.csv:3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(History::read_csv(dir / "missing.csv"), ConfigError);
}

TEST(Plot, SvgHasAPanelPerMetricAndALinePerSplit) {
  History history;
  for (int64_t e = 1; e <= 3; ++e) {
    history.add(
        {e,
         "train",
         {{"loss", 1.0 / static_cast<double>(e)}, {"accuracy", 0.5}, {"items_per_second", 100}}});
    history.add({e, "valid", {{"loss", 1.5 / static_cast<double>(e)}, {"accuracy", 0.4}}});
  }
  const ::ember::test::TempDir dir_holder("ember-train-plot");
  const std::filesystem::path dir = dir_holder.path();
  write_svg_plot(history, dir / "curves.svg");
  std::ifstream in(dir / "curves.svg");
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count("<polyline"), 4u);  // loss and accuracy, train and valid; no items_per_second
  EXPECT_EQ(count(">loss<"), 1u);
  EXPECT_EQ(count(">accuracy<"), 1u);
}

/// A locale whose numbers use ',' for the decimal point and '.' between thousands (German-like),
/// made global for the scope: what a program that localizes its output sets.
class CommaLocaleScope {
 public:
  CommaLocaleScope()
      : previous_(std::locale::global(std::locale(std::locale::classic(), new Comma))) {}
  ~CommaLocaleScope() { std::locale::global(previous_); }

 private:
  struct Comma : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
  };
  std::locale previous_;
};

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(History, FilesAreTheSameInEveryLocale) {
  History history;
  history.add({1, "train", {{"loss", 1.234}, {"items_per_second", 12345.5}}});
  history.add({2, "train", {{"loss", 0.5}, {"items_per_second", 23456.0}}});
  const ::ember::test::TempDir dir("ember-train-locale");
  history.write_csv(dir / "classic.csv");
  write_svg_plot(history, dir / "classic.svg");
  {
    const CommaLocaleScope comma;
    history.write_csv(dir / "comma.csv");
    write_svg_plot(history, dir / "comma.svg");
    EXPECT_EQ(History::read_csv(dir / "comma.csv").value(1, "train", "loss"), 1.234);
  }
  EXPECT_EQ(file_text(dir / "comma.csv"),
            "epoch,split,metric,value\n1,train,loss,1.234\n1,train,items_per_second,12345.5\n"
            "2,train,loss,0.5\n2,train,items_per_second,23456\n");
  EXPECT_EQ(file_text(dir / "comma.svg"), file_text(dir / "classic.svg"));
}

TEST(History, FilesAreWrittenThroughTheAtomicWriter) {
  // A directory in the way: the record writer's error, naming the op and the path.
  const ::ember::test::TempDir dir("ember-train-atomic");
  std::filesystem::create_directory(dir / "metrics.csv");
  try {
    History{}.write_csv(dir / "metrics.csv");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("[write_csv] " + (dir / "metrics.csv").string()),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"metrics.csv"});  // no temporary file left
}

TEST(BestTracker, LowerIsBetterWithMinDeltaAndNaN) {
  BestTracker best("loss", Better::Lower, 0.1);
  EXPECT_TRUE(best.observe(1, 1.0));
  EXPECT_FALSE(best.observe(2, 0.95));  // not by more than 0.1
  EXPECT_FALSE(best.observe(3, std::nan("")));
  EXPECT_EQ(best.epochs_since_best(), 2);
  EXPECT_TRUE(best.observe(4, 0.5));
  EXPECT_EQ(best.best_epoch(), 4);
  EXPECT_EQ(best.epochs_since_best(), 0);
  BestTracker higher("accuracy", Better::Higher);
  EXPECT_TRUE(higher.observe(1, 0.5));
  EXPECT_FALSE(higher.observe(2, 0.5));
  EXPECT_TRUE(higher.observe(3, 0.6));
  EXPECT_THROW(BestTracker("loss", Better::Lower, -1.0), InvalidArgument);
}

}  // namespace
}  // namespace ember::train
