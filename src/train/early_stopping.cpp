#include "ember/train/early_stopping.h"

#include <cmath>

#include "ember/error.h"

namespace ember::train {

BestTracker::BestTracker(std::string metric, Better better, double min_delta)
    : metric_(std::move(metric)), better_(better), min_delta_(min_delta) {
  if (!(min_delta >= 0)) throw InvalidArgument("[early_stopping] min_delta must be >= 0");
}

bool BestTracker::observe(int64_t epoch, double value) {
  const bool improves =
      !std::isnan(value) &&
      (!best_value_ || (better_ == Better::Lower ? value < *best_value_ - min_delta_
                                                 : value > *best_value_ + min_delta_));
  if (!improves) {
    ++since_best_;
    return false;
  }
  best_epoch_ = epoch;
  best_value_ = value;
  since_best_ = 0;
  return true;
}

void BestTracker::restore(std::optional<int64_t> best_epoch, std::optional<double> best_value,
                          int64_t epochs_since_best) {
  best_epoch_ = best_epoch;
  best_value_ = best_value;
  since_best_ = epochs_since_best;
}

}  // namespace ember::train
