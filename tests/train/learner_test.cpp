// The learner end to end on a tiny problem (two well-separated classes in the plane, a Linear
// classifier, SGD): it learns, writes its files, keeps the checkpoints it should, resumes to the
// same weights bit for bit as an uninterrupted run, and stops early.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <sstream>
#include <vector>

#include "ember/data/dataloader.h"
#include "ember/data/in_memory_dataset.h"
#include "ember/ember.h"
#include "ember/nn/linear.h"
#include "ember/optim/scheduler.h"
#include "ember/optim/sgd.h"
#include "ember/train/learner.h"
#include "support/suite_device.h"
#include "support/temp_dir.h"

namespace ember::train {
namespace {

struct Point {
  std::array<double, 2> x;
  int64_t label;
};
struct PointBatch {
  Tensor<2> x;
  Tensor<1, Int> labels;
};

PointBatch make_batch(const std::vector<Point>& points, const Device& device) {
  std::vector<double> x;
  std::vector<int64_t> labels;
  for (const Point& p : points) {
    x.insert(x.end(), p.x.begin(), p.x.end());
    labels.push_back(p.label);
  }
  const auto n = static_cast<int64_t>(points.size());
  return {Tensor<2>::from_data(TensorData(x, Shape{n, 2}), device),
          Tensor<1, Int>::from_ints(labels, device)};
}

/// Class 0 around (-1, -1), class 1 around (1, 1): a fixed grid of offsets, no randomness.
data::DatasetPtr<Point> points() {
  std::vector<Point> all;
  for (int i = 0; i < 24; ++i) {
    const double dx = 0.1 * (i % 5) - 0.2, dy = 0.1 * (i % 3) - 0.1;
    const int64_t label = i % 2;
    const double center = label ? 1.0 : -1.0;
    all.push_back({{center + dx, center + dy}, label});
  }
  return data::in_memory(std::move(all));
}

struct Classifier {
  nn::Linear fc;
  EMBER_MODULE(fc)
};

ClassificationOutput step(const Classifier& model, const PointBatch& batch) {
  const Tensor<2> logits = model.fc.forward(batch.x);
  return {module::cross_entropy(logits, batch.labels), logits, batch.labels};
}

struct TrainingRun {
  Classifier model;
  optim::Sgd optimizer = optim::SgdConfig{.momentum = 0.9}.init();
  optim::ConstantLr scheduler = optim::ConstantLrConfig{0.1}.init();
};

TrainingRun fresh_run(const Device& device) {
  device.seed(3);
  return {Classifier{nn::LinearConfig{2, 2}.init(device)}};
}

/// Trains run; what the learner prints goes to console when given.
FitResult fit(TrainingRun& run, LearnerConfig config, const Device& device,
              std::ostringstream* console = nullptr) {
  std::ostringstream out;
  config.out = console != nullptr ? console : &out;
  config.terminal = false;
  data::DataLoader<Point, PointBatch> train(points(), make_batch,
                                            {.batch_size = 8, .shuffle = 11, .device = device});
  data::DataLoader<Point, PointBatch> valid(points(), make_batch,
                                            {.batch_size = 8, .device = device});
  Learner learner(std::move(config), run.model, run.optimizer, run.scheduler);
  return learner.fit(train, valid, step);
}

std::vector<double> weights(const Classifier& model) {
  return model.fc.weight->into_data().to_vector<double>();
}

TEST(Learner, LearnsAndWritesMetricsPlotAndCheckpoints) {
  const Device device = ember::test::suite_device().autodiff();
  const ::ember::test::TempDir dir_holder("ember-train-learns");
  const std::filesystem::path dir = dir_holder.path();
  TrainingRun run = fresh_run(device);
  const FitResult result = fit(run, {.epochs = 4, .directory = dir, .keep_checkpoints = 2}, device);
  EXPECT_EQ(result.last_epoch, 4);
  EXPECT_DOUBLE_EQ(result.history.value(4, "valid", "accuracy").value(), 1.0);
  EXPECT_LT(result.history.value(4, "train", "loss").value(),
            result.history.value(1, "train", "loss").value());
  EXPECT_TRUE(std::filesystem::exists(dir / "metrics.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "curves.svg"));
  EXPECT_EQ(Checkpoints(dir / "checkpoints").epochs(), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(std::filesystem::exists(dir / "checkpoints" / "best" / "model.safetensors"));
  // The saved model is the trained one.
  TrainingRun other = fresh_run(device);
  record::load(other.model, dir / "checkpoints" / "epoch-4" / "model.safetensors");
  EXPECT_EQ(weights(other.model), weights(run.model));
}

TEST(Learner, ResumingGivesTheWeightsOfAnUninterruptedRun) {
  const Device device = ember::test::suite_device().autodiff();
  const ::ember::test::TempDir straight_dir_holder("ember-train-straight");
  const std::filesystem::path straight_dir = straight_dir_holder.path();
  TrainingRun straight = fresh_run(device);
  fit(straight, {.epochs = 4, .directory = straight_dir}, device);

  const ::ember::test::TempDir dir_holder("ember-train-resumed");
  const std::filesystem::path dir = dir_holder.path();
  TrainingRun first = fresh_run(device);
  fit(first, {.epochs = 2, .directory = dir}, device);
  TrainingRun second =
      fresh_run(device);  // new model, optimizer and scheduler: all state comes from disk
  const FitResult resumed = fit(second, {.epochs = 4, .directory = dir, .resume = true}, device);
  EXPECT_EQ(weights(second.model), weights(straight.model));
  EXPECT_EQ(resumed.history.value(1, "train", "loss"),
            History::read_csv(straight_dir / "metrics.csv").value(1, "train", "loss"));
}

TEST(Learner, ResumingRestoresTheLossScale) {
  // A scaler that doubles its scale every 2 finite steps (f32 gradients never overflow here), 3
  // batches an epoch: 6 doublings in 4 epochs. A resumed run that forgot the scale would start
  // again from 4 and end at 4 * 2^4.
  const Device device = ember::test::suite_device().autodiff();
  const optim::GradScalerConfig scaler{.init_scale = 4.0, .growth_interval = 2};
  const auto scale_after = [](const std::filesystem::path& dir, int64_t epoch) {
    return Checkpoints(dir / "checkpoints").load_state(epoch).grad_scaler.value();
  };
  const ::ember::test::TempDir straight_holder("ember-train-scaled-straight");
  TrainingRun straight = fresh_run(device);
  fit(straight,
      {.epochs = 4,
       .directory = straight_holder.path(),
       .keep_checkpoints = 4,
       .grad_scaler = scaler},
      device);
  const GradScalerState expected = scale_after(straight_holder.path(), 4);
  EXPECT_EQ(expected.scale, 4.0 * 64);  // 12 finite steps: 6 doublings
  EXPECT_EQ(expected.growth_tracker, 0);
  EXPECT_EQ(scale_after(straight_holder.path(), 1).growth_tracker, 1);  // 3 steps: 1 since

  const ::ember::test::TempDir dir_holder("ember-train-scaled-resumed");
  const std::filesystem::path dir = dir_holder.path();
  TrainingRun first = fresh_run(device);
  fit(first, {.epochs = 1, .directory = dir, .grad_scaler = scaler}, device);
  TrainingRun second = fresh_run(device);
  fit(second, {.epochs = 4, .directory = dir, .resume = true, .grad_scaler = scaler}, device);
  const GradScalerState resumed = scale_after(dir, 4);
  EXPECT_EQ(resumed.scale, expected.scale);
  EXPECT_EQ(resumed.growth_tracker, expected.growth_tracker);
  EXPECT_EQ(weights(second.model), weights(straight.model));
}

TEST(Learner, ResumingSaysWhichCheckpointsItSkipsAndWhenItStartsAfresh) {
  const Device device = ember::test::suite_device().autodiff();
  const ::ember::test::TempDir dir_holder("ember-train-incomplete");
  const std::filesystem::path dir = dir_holder.path();
  TrainingRun first = fresh_run(device);
  fit(first, {.epochs = 2, .directory = dir}, device);
  const std::filesystem::path checkpoints = dir / "checkpoints";
  // Epoch 2 lost its training state: the run resumes after epoch 1, and says why.
  std::filesystem::remove(checkpoints / "epoch-2" / "training.safetensors");
  std::ostringstream console;
  TrainingRun second = fresh_run(device);
  const FitResult resumed =
      fit(second, {.epochs = 2, .directory = dir, .resume = true}, device, &console);
  EXPECT_EQ(resumed.last_epoch, 2);
  EXPECT_NE(console.str().find("resume: skipping " + (checkpoints / "epoch-2").string() +
                               ", which lacks training.safetensors"),
            std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("resuming after epoch 1"), std::string::npos) << console.str();
  // No complete checkpoint at all: training starts at epoch 1, and the console says so.
  for (const char* epoch : {"epoch-1", "epoch-2"})
    std::filesystem::remove(checkpoints / epoch / "training.safetensors");
  std::ostringstream afresh;
  TrainingRun third = fresh_run(device);
  fit(third, {.epochs = 1, .directory = dir, .resume = true}, device, &afresh);
  EXPECT_NE(afresh.str().find("resume: no complete checkpoint in " + checkpoints.string() +
                              "; training from epoch 1"),
            std::string::npos)
      << afresh.str();
}

TEST(Learner, StopsEarlyWhenTheBestMetricStopsImproving) {
  const Device device = ember::test::suite_device().autodiff();
  const ::ember::test::TempDir dir_holder("ember-train-early");
  const std::filesystem::path dir = dir_holder.path();
  TrainingRun run = fresh_run(device);
  // Accuracy reaches 1.0 and cannot improve further, so training stops patience epochs later.
  const FitResult result =
      fit(run, {.epochs = 50, .directory = dir, .early_stopping = EarlyStopping{.patience = 2}},
          device);
  EXPECT_TRUE(result.stopped_early);
  ASSERT_TRUE(result.best_epoch.has_value());
  EXPECT_EQ(result.last_epoch, *result.best_epoch + 2);
}

TEST(Learner, RejectsABadConfig) {
  TrainingRun run = fresh_run(ember::test::suite_device().autodiff());
  EXPECT_THROW(Learner(LearnerConfig{.epochs = 0, .directory = "x"}, run.model, run.optimizer,
                       run.scheduler),
               InvalidArgument);
  EXPECT_THROW(
      Learner(LearnerConfig{.epochs = 1, .directory = {}}, run.model, run.optimizer, run.scheduler),
      InvalidArgument);
}

}  // namespace
}  // namespace ember::train
