#include "ember/train/history.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ember/error.h"
#include "ember/record/file_io.h"
#include "number_text.h"

namespace ember::train {
namespace {

[[noreturn]] void malformed(const std::filesystem::path& path, int line, const std::string& why) {
  throw InvalidArgument("[history] " + path.string() + ":" + std::to_string(line) + ": " + why);
}

EpochRecord& record_for(std::vector<EpochRecord>& records, int64_t epoch,
                        const std::string& split) {
  for (EpochRecord& r : records) {
    if (r.epoch == epoch && r.split == split) return r;
  }
  records.push_back({epoch, split, {}});
  return records.back();
}

}  // namespace

void History::add(EpochRecord record) {
  records_.push_back(std::move(record));
}

std::optional<double> History::value(int64_t epoch, const std::string& split,
                                     const std::string& metric) const {
  for (const EpochRecord& r : records_) {
    if (r.epoch != epoch || r.split != split) continue;
    for (const auto& [name, v] : r.values) {
      if (name == metric) return v;
    }
  }
  return std::nullopt;
}

void History::truncate_after(int64_t epoch) {
  std::erase_if(records_, [&](const EpochRecord& r) { return r.epoch > epoch; });
}

void History::write_csv(const std::filesystem::path& path) const {
  std::string out = "epoch,split,metric,value\n";
  for (const EpochRecord& r : records_) {
    for (const auto& [name, value] : r.values) {
      out += std::to_string(r.epoch) + ',' + r.split + ',' + name + ',' +
             detail::exact_text(value) + '\n';
    }
  }
  record::write_file_atomically(path, out, "write_csv");
}

History History::read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("[history] cannot read " + path.string());
  std::string line;
  std::getline(in, line);
  if (line != "epoch,split,metric,value") malformed(path, 1, "not a metrics log header");
  History history;
  for (int number = 2; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string epoch, split, metric, value;
    if (!std::getline(fields, epoch, ',') || !std::getline(fields, split, ',') ||
        !std::getline(fields, metric, ',') || !std::getline(fields, value)) {
      malformed(path, number, "expected 4 fields");
    }
    const std::optional<int64_t> e = detail::parse_number<int64_t>(epoch);
    if (!e || *e < 1) malformed(path, number, "bad epoch " + epoch);
    const std::optional<double> v = detail::parse_number<double>(value);
    if (!v) malformed(path, number, "bad value " + value);
    record_for(history.records_, *e, split).values.emplace_back(metric, *v);
  }
  return history;
}

}  // namespace ember::train
