// The progress display of a training run: on a terminal one line redrawn in place (a bar, items,
// the running metrics, items per second and the time left); elsewhere (a log file, CI) a plain
// line at every tenth of the epoch and at its end, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "ember/train/metrics.h"

namespace ember::train {

class Progress {
 public:
  /// terminal: redraw in place with '\r'; otherwise plain lines.
  Progress(std::ostream& out, bool terminal);
  /// Whether standard output is a terminal.
  static bool stdout_is_terminal();

  /// Starts a phase ("epoch 2/10 train") of total_items items.
  void start(std::string label, int64_t total_items);
  /// items_done items of the phase are done; values are its running metrics.
  void update(int64_t items_done, const MetricValues& values);
  /// Ends the phase with its final metrics (always one complete line).
  void finish(const MetricValues& values);

 private:
  std::string line(int64_t items_done, const MetricValues& values) const;

  std::ostream& out_;
  bool terminal_;
  std::string label_;
  int64_t total_ = 0;
  int64_t next_plain_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

/// "loss 0.4321 accuracy 0.8765 ..." (rates and learning rates in a readable form).
std::string format_metrics(const MetricValues& values);

}  // namespace ember::train
