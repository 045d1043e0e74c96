#include "ember/train/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace ember::train {
namespace {

constexpr int kBarWidth = 24;
// A terminal line is redrawn at most this often: drawing costs more than a tiny step.
constexpr std::chrono::milliseconds kRedrawInterval{100};

std::string bar(int64_t done, int64_t total) {
  const int filled = total > 0 ? static_cast<int>(kBarWidth * done / total) : kBarWidth;
  std::string s = "[" + std::string(static_cast<std::size_t>(filled), '=');
  if (filled < kBarWidth) s += '>';
  s.resize(kBarWidth + 1, ' ');
  return s + "]";
}

std::string duration(double seconds) {
  const auto total = static_cast<int64_t>(seconds + 0.5);
  std::ostringstream s;
  s << total / 60 << ':' << std::setw(2) << std::setfill('0') << total % 60;
  return s.str();
}

}  // namespace

std::string format_metrics(const MetricValues& values) {
  std::ostringstream s;
  for (const auto& [name, value] : values) {
    if (s.tellp() > 0) s << ' ';
    if (name == "items_per_second") {
      s << std::fixed << std::setprecision(0) << value << " it/s";
    } else if (name == "lr") {
      s << "lr " << std::scientific << std::setprecision(2) << value;
    } else {
      s << name << ' ' << std::fixed << std::setprecision(4) << value;
    }
  }
  return s.str();
}

Progress::Progress(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

bool Progress::stdout_is_terminal() {
  return isatty(fileno(stdout)) != 0;
}

void Progress::start(std::string label, int64_t total_items) {
  label_ = std::move(label);
  total_ = total_items;
  next_plain_ = total_items / 10;
  start_ = std::chrono::steady_clock::now();
  last_draw_ = start_ - kRedrawInterval;
}

std::string Progress::line(int64_t items_done, const MetricValues& values) const {
  std::ostringstream s;
  s << label_ << ' ' << bar(items_done, total_) << ' ' << items_done << '/' << total_ << ' '
    << format_metrics(values);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  if (items_done > 0 && items_done < total_) {
    const double left = elapsed.count() * static_cast<double>(total_ - items_done) /
                        static_cast<double>(items_done);
    s << " ETA " << duration(left);
  } else {
    s << " in " << duration(elapsed.count());
  }
  return s.str();
}

void Progress::update(int64_t items_done, const MetricValues& values) {
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    if (now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    // \33[K clears what a longer previous line left.
    out_ << '\r' << line(items_done, values) << "\33[K" << std::flush;
    return;
  }
  if (items_done < next_plain_ || items_done >= total_) return;
  out_ << line(items_done, values) << '\n' << std::flush;
  next_plain_ = std::max(next_plain_ + std::max<int64_t>(total_ / 10, 1), items_done + 1);
}

void Progress::finish(const MetricValues& values) {
  if (terminal_) out_ << '\r';
  out_ << line(total_, values) << (terminal_ ? "\33[K\n" : "\n") << std::flush;
}

}  // namespace ember::train
