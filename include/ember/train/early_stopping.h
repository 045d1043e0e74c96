// Stopping a run when a validation metric stops improving, and which epoch is the best so far
// (the checkpoint kept as "best").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ember::train {

/// Whether a lower or a higher value of a metric is better.
enum class Better { Lower, Higher };

/// Tracks the best value of one metric over epochs.
class BestTracker {
 public:
  /// min_delta >= 0: an improvement must beat the best by more than this.
  BestTracker(std::string metric, Better better, double min_delta = 0.0);
  const std::string& metric() const { return metric_; }
  /// Records epoch's value; true when it is a new best. NaN never improves.
  bool observe(int64_t epoch, double value);
  std::optional<int64_t> best_epoch() const { return best_epoch_; }
  std::optional<double> best_value() const { return best_value_; }
  /// Epochs observed since the best one.
  int64_t epochs_since_best() const { return since_best_; }
  /// Continues from a saved position (a resumed run).
  void restore(std::optional<int64_t> best_epoch, std::optional<double> best_value,
               int64_t epochs_since_best);

 private:
  std::string metric_;
  Better better_;
  double min_delta_;
  std::optional<int64_t> best_epoch_;
  std::optional<double> best_value_;
  int64_t since_best_ = 0;
};

/// Stops a run after `patience` epochs without an improvement of the learner's best metric
/// (LearnerConfig::best_metric on the validation split) by more than min_delta.
struct EarlyStopping {
  int64_t patience = 3;  ///< >= 1
  double min_delta = 0.0;
};

}  // namespace ember::train
