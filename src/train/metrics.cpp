#include "ember/train/metrics.h"

#include <cmath>
#include <span>
#include <sstream>
#include <string>

#include "ember/error.h"

namespace ember::train {

namespace {

std::string shape_text(const Shape& shape) {
  std::ostringstream text;
  text << shape;
  return text.str();
}

/// Whether the target's entry of row is strictly among its k largest: a number, with fewer than
/// k other entries at least as large. A tie ranks against the target, and so does a NaN (topk
/// ranks NaN above every number), so constant or NaN logits never look right.
bool target_in_top_k(std::span<const double> row, int64_t label, int64_t k) {
  const double target = row[static_cast<std::size_t>(label)];
  if (std::isnan(target)) return false;
  int64_t ahead = 0;
  for (std::size_t c = 0; c < row.size(); ++c)
    ahead += static_cast<int64_t>(c) != label && !(row[c] < target) ? 1 : 0;
  return ahead < k;
}

}  // namespace

int64_t count_top_k_correct(const TensorData& logits, const TensorData& targets, int64_t k) {
  if (logits.shape().rank() != 2 || targets.shape().rank() != 1 ||
      targets.shape()[0] != logits.shape()[0]) {
    throw InvalidArgument("[metrics] expects logits [B, C] and targets [B], got logits " +
                          shape_text(logits.shape()) + " and targets " +
                          shape_text(targets.shape()));
  }
  if (k < 1) throw InvalidArgument("[metrics] top-k needs k >= 1, got " + std::to_string(k));
  const int64_t rows = logits.shape()[0];
  const auto classes = static_cast<std::size_t>(logits.shape()[1]);
  const std::vector<double> values = logits.to_vector<double>();
  const std::vector<int64_t> labels = targets.to_vector<int64_t>();
  int64_t correct = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t label = labels[static_cast<std::size_t>(r)];
    if (label < 0 || label >= static_cast<int64_t>(classes)) {
      throw InvalidArgument("[metrics] target " + std::to_string(label) + " outside [0, " +
                            std::to_string(classes) + ")");
    }
    const std::span<const double> row(values.data() + static_cast<std::size_t>(r) * classes,
                                      classes);
    correct += target_in_top_k(row, label, k) ? 1 : 0;
  }
  return correct;
}

EpochMetrics::EpochMetrics(int64_t top_k)
    : top_k_(top_k), start_(std::chrono::steady_clock::now()) {}

void EpochMetrics::update(const ClassificationOutput& output) {
  const TensorData logits = output.logits.into_data();
  const TensorData targets = output.targets.into_data();
  // Counted first: count_top_k_correct checks the shapes before anything is added up.
  const int64_t correct = count_top_k_correct(logits, targets, 1);
  const int64_t correct_top_k = top_k_ > 1 ? count_top_k_correct(logits, targets, top_k_) : 0;
  const int64_t batch = targets.shape()[0];
  loss_sum_ += output.loss.into_data().to_vector<double>().at(0) * static_cast<double>(batch);
  correct_ += correct;
  correct_top_k_ += correct_top_k;
  items_ += batch;
}

double EpochMetrics::loss() const {
  return items_ ? loss_sum_ / static_cast<double>(items_) : 0.0;
}

double EpochMetrics::accuracy() const {
  return items_ ? static_cast<double>(correct_) / static_cast<double>(items_) : 0.0;
}

double EpochMetrics::items_per_second() const {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  return elapsed.count() > 0 ? static_cast<double>(items_) / elapsed.count() : 0.0;
}

MetricValues EpochMetrics::values() const {
  MetricValues v{{"loss", loss()}, {"accuracy", accuracy()}};
  if (top_k_ > 1) {
    v.emplace_back(
        "top" + std::to_string(top_k_) + "_accuracy",
        items_ ? static_cast<double>(correct_top_k_) / static_cast<double>(items_) : 0.0);
  }
  if (lr_) v.emplace_back("lr", *lr_);
  v.emplace_back("items_per_second", items_per_second());
  return v;
}

}  // namespace ember::train
