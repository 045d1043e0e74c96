// What a training or validation step reports, and the running metrics of an epoch built from it:
// mean loss (weighted by items), accuracy, top-k accuracy, learning rate and items per second.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::train {

/// A classification step's result: the batch's mean loss, the logits [B, C] and targets [B].
struct ClassificationOutput {
  Tensor<1> loss;
  Tensor<2> logits;
  Tensor<1, Int> targets;
};

/// One epoch's metric values by name ("loss", "accuracy", "top5_accuracy", "lr",
/// "items_per_second"), in a fixed order.
using MetricValues = std::vector<std::pair<std::string, double>>;

/// Running metrics of one epoch of one split. Reading a step's values syncs with its device.
class EpochMetrics {
 public:
  /// top_k > 1 adds "top<k>_accuracy"; 0 or 1 leaves it out.
  explicit EpochMetrics(int64_t top_k = 0);
  /// Adds a step's output (batch size = targets' length). InvalidArgument "[metrics] ..." when
  /// logits and targets disagree in batch size.
  void update(const ClassificationOutput& output);
  /// The learning rate in effect (reported as "lr" when set).
  void set_learning_rate(double lr) { lr_ = lr; }

  int64_t items() const { return items_; }
  double loss() const;
  double accuracy() const;
  /// Items per second since construction.
  double items_per_second() const;
  /// Every metric, for logs and plots.
  MetricValues values() const;

 private:
  int64_t top_k_;
  int64_t items_ = 0;
  double loss_sum_ = 0.0;
  int64_t correct_ = 0;
  int64_t correct_top_k_ = 0;
  std::optional<double> lr_;
  std::chrono::steady_clock::time_point start_;
};

/// The number of rows of logits [B, C] whose target [B] is strictly among the k largest entries
/// (k = 1: plain accuracy): fewer than k other entries are at least as large. Ties count against
/// the target, a NaN entry ranks above every number (as in topk), and a NaN target entry is
/// never correct, so a model whose logits are constant or NaN scores 0. InvalidArgument for
/// other shapes, k < 1 or a target outside [0, C).
int64_t count_top_k_correct(const TensorData& logits, const TensorData& targets, int64_t k);

}  // namespace ember::train
