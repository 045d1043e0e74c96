// Loading safetensors files with many tensors: the header parse must take time proportional to
// the file's size. For each entry count (--entries, default 1000,10000,100000,200000) it writes a
// file of that many one-element f32 tensors named like a model's ("layers.<i>.weight") with
// ember's writer, then prints the median load time of --repeats loads (default 5, after one
// warm-up), the time per entry and the header's parse rate. A flat time per entry is linear
// scaling; the hardening issue's target is 100,000 entries in under a second.
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "ember/record/safetensors.h"
#include "support/flags.h"
#include "support/median.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace record = ember::record;

record::Record many_tensors(int64_t entries) {
  record::Record out;
  out.tensors.reserve(static_cast<std::size_t>(entries));
  for (int64_t i = 0; i < entries; ++i) {
    out.tensors.push_back(
        {"layers." + std::to_string(i) + ".weight",
         ember::TensorData(std::vector<float>{static_cast<float>(i)}, ember::Shape{1})});
  }
  return out;
}

double load_seconds(const std::filesystem::path& file) {
  const Clock::time_point start = Clock::now();
  const record::Record loaded = record::load_safetensors(file);
  const std::chrono::duration<double> elapsed = Clock::now() - start;
  if (loaded.tensors.empty()) std::printf("(loaded no tensor)\n");
  return elapsed.count();
}

}  // namespace

int main(int argc, char** argv) try {
  const ember::bench::Flags flags(argc, argv, {"entries", "repeats"});
  const std::vector<int64_t> counts = flags.has("entries")
                                          ? flags.integers("entries")
                                          : std::vector<int64_t>{1000, 10000, 100000, 200000};
  const int64_t repeats = flags.integer("repeats", 5);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "ember_safetensors_load_bench.safetensors";
  std::printf("%10s %12s %14s %12s %14s\n", "entries", "file MB", "median load s", "us/entry",
              "header MB/s");
  for (int64_t entries : counts) {
    record::save_safetensors(many_tensors(entries), file);
    const double megabytes = static_cast<double>(std::filesystem::file_size(file)) / 1e6;
    load_seconds(file);  // warm-up: the page cache, the allocator
    std::vector<double> times;
    for (int64_t i = 0; i < repeats; ++i)
      times.push_back(load_seconds(file));
    const double seconds = ember::bench::median(times);
    std::printf("%10lld %12.2f %14.3f %12.2f %14.1f\n", static_cast<long long>(entries), megabytes,
                seconds, seconds / static_cast<double>(entries) * 1e6, megabytes / seconds);
  }
  std::filesystem::remove(file);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "safetensors_load_bench: %s\n", e.what());
  return 1;
}
