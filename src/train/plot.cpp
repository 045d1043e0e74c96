// write_svg_plot: small multiples, one panel per metric, one polyline per split.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/record/file_io.h"
#include "ember/train/history.h"
#include "number_text.h"

namespace ember::train {
namespace {

constexpr double kPanelWidth = 420;
constexpr double kPanelHeight = 260;
constexpr double kMargin = 48;  // room for the axis labels
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

struct Point {
  double epoch;
  double value;
};
/// metric → split → points, in the order first seen.
using Series =
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<Point>>>>>;

template <typename T>
T& entry(std::vector<std::pair<std::string, T>>& list, const std::string& key) {
  for (auto& [k, v] : list) {
    if (k == key) return v;
  }
  list.emplace_back(key, T{});
  return list.back().second;
}

Series series_of(const History& history) {
  Series series;
  for (const EpochRecord& r : history.records()) {
    for (const auto& [metric, value] : r.values) {
      if (metric == "items_per_second" || !std::isfinite(value)) continue;
      entry(entry(series, metric), r.split).push_back({static_cast<double>(r.epoch), value});
    }
  }
  return series;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void include(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
  /// Maps v into [to_lo, to_hi]; a flat range maps to the middle.
  double map(double v, double to_lo, double to_hi) const {
    if (hi <= lo) return (to_lo + to_hi) / 2;
    return to_lo + (v - lo) / (hi - lo) * (to_hi - to_lo);
  }
};

/// A label: 4 significant digits.
std::string label(double v) {
  return detail::rounded_text(v, 4);
}

/// A coordinate: 6 significant digits, a hundredth of a pixel on a panel.
std::string at(double v) {
  return detail::rounded_text(v, 6);
}

void panel(std::string& svg, double x0, const std::string& metric,
           const std::vector<std::pair<std::string, std::vector<Point>>>& splits) {
  Range epochs, values;
  for (const auto& [split, points] : splits) {
    for (const Point& p : points)
      epochs.include(p.epoch), values.include(p.value);
  }
  const double left = x0 + kMargin, right = x0 + kPanelWidth - 10;
  const double top = 30, bottom = kPanelHeight - kMargin + 10;
  svg += "<text x='" + at((left + right) / 2) + "' y='18' text-anchor='middle'>" + metric +
         "</text>\n<rect x='" + at(left) + "' y='" + at(top) + "' width='" + at(right - left) +
         "' height='" + at(bottom - top) + "' fill='none' stroke='#888'/>\n";
  svg += "<text x='" + at(left - 4) + "' y='" + at(top + 10) + "' text-anchor='end'>" +
         label(values.hi) + "</text>\n<text x='" + at(left - 4) + "' y='" + at(bottom) +
         "' text-anchor='end'>" + label(values.lo) + "</text>\n";
  svg += "<text x='" + at(left) + "' y='" + at(bottom + 16) + "'>epoch " + label(epochs.lo) +
         "</text>\n<text x='" + at(right) + "' y='" + at(bottom + 16) + "' text-anchor='end'>" +
         label(epochs.hi) + "</text>\n";
  std::size_t color = 0;
  for (const auto& [split, points] : splits) {
    const std::string stroke = kColors[color++ % std::size(kColors)];
    svg += "<polyline fill='none' stroke='" + stroke + "' stroke-width='2' points='";
    for (const Point& p : points)
      svg +=
          at(epochs.map(p.epoch, left, right)) + ',' + at(values.map(p.value, bottom, top)) + ' ';
    svg += "'/>\n<text x='" + at(right - 4) + "' y='" + at(top + 14 * static_cast<double>(color)) +
           "' text-anchor='end' fill='" + stroke + "'>" + split + "</text>\n";
  }
}

}  // namespace

void write_svg_plot(const History& history, const std::filesystem::path& path) {
  const Series series = series_of(history);
  const double width = kPanelWidth * static_cast<double>(std::max<std::size_t>(series.size(), 1));
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='" + at(width) + "' height='" +
                    at(kPanelHeight) +
                    "' font-family='sans-serif' font-size='11'>\n"
                    "<rect width='100%' height='100%' fill='white'/>\n";
  double x0 = 0;
  for (const auto& [metric, splits] : series) {
    panel(svg, x0, metric, splits);
    x0 += kPanelWidth;
  }
  svg += "</svg>\n";
  record::write_file_atomically(path, svg, "write_svg_plot");
}

}  // namespace ember::train
