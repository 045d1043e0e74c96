#include "ember/train/metrics.h"

#include <string>

#include "ember/error.h"

namespace ember::train {

int64_t count_top_k_correct(const TensorData& logits, const TensorData& targets, int64_t k) {
  const int64_t rows = logits.shape()[0];
  const int64_t classes = logits.shape()[1];
  const std::vector<double> values = logits.to_vector<double>();
  const std::vector<int64_t> labels = targets.to_vector<int64_t>();
  int64_t correct = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t label = labels[static_cast<std::size_t>(r)];
    if (label < 0 || label >= classes) {
      throw InvalidArgument("[metrics] target " + std::to_string(label) + " outside [0, " +
                            std::to_string(classes) + ")");
    }
    const double* row = values.data() + r * classes;
    int64_t strictly_greater = 0;
    for (int64_t c = 0; c < classes; ++c)
      strictly_greater += row[c] > row[label] ? 1 : 0;
    correct += strictly_greater < k ? 1 : 0;
  }
  return correct;
}

EpochMetrics::EpochMetrics(int64_t top_k)
    : top_k_(top_k), start_(std::chrono::steady_clock::now()) {}

void EpochMetrics::update(const ClassificationOutput& output) {
  const TensorData logits = output.logits.to_data();
  const TensorData targets = output.targets.to_data();
  const int64_t batch = targets.shape()[0];
  if (logits.shape()[0] != batch) {
    throw InvalidArgument("[metrics] logits of " + std::to_string(logits.shape()[0]) +
                          " rows and " + std::to_string(batch) + " targets");
  }
  loss_sum_ += output.loss.to_data().to_vector<double>().at(0) * static_cast<double>(batch);
  correct_ += count_top_k_correct(logits, targets, 1);
  if (top_k_ > 1) correct_top_k_ += count_top_k_correct(logits, targets, top_k_);
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
