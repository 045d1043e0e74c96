// The metrics of a run, epoch by epoch and split by split ("train", "valid"), written as CSV
// (long format: epoch,split,metric,value — new metrics need no new column) and read back when a
// run resumes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ember/train/metrics.h"

namespace ember::train {

struct EpochRecord {
  int64_t epoch;  ///< 1-based
  std::string split;
  MetricValues values;
};

class History {
 public:
  void add(EpochRecord record);
  const std::vector<EpochRecord>& records() const { return records_; }
  /// The value of metric for (epoch, split), if recorded.
  std::optional<double> value(int64_t epoch, const std::string& split,
                              const std::string& metric) const;
  /// Drops the records after epoch (a resumed run continues from its checkpoint).
  void truncate_after(int64_t epoch);

  /// Writes every record, numbers in the same text in every locale, through
  /// record::write_file_atomically (InvalidArgument "[write_csv] <path>: ..." on failure).
  void write_csv(const std::filesystem::path& path) const;
  /// Reads a file write_csv wrote; InvalidArgument "[history] path:line ..." for a malformed
  /// line.
  static History read_csv(const std::filesystem::path& path);

 private:
  std::vector<EpochRecord> records_;
};

/// An SVG with one panel per metric (loss, accuracy, ... as recorded), a line per split over
/// the epochs, axes with their ranges. Written through record::write_file_atomically
/// (InvalidArgument "[write_svg_plot] <path>: ..." on failure); numbers do not follow the locale.
void write_svg_plot(const History& history, const std::filesystem::path& path);

}  // namespace ember::train
