// One JSON object a line, the output of the GPU comparison programs (cuda_bench,
// encoder_step_bench), which their Python drivers read line by line.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace ember::bench {

/// value as a JSON string: quoted, with quotes, backslashes and control characters escaped.
inline std::string json_string(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < ' ') {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + '"';
}

/// value as a JSON number, null when it is not finite.
inline std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  std::ostringstream out;
  out.precision(15);  // flop counts exactly
  out << value;
  return out.str();
}

/// One JSON object on one line, its fields in the order added.
class JsonLine {
 public:
  JsonLine& text(const std::string& key, const std::string& value) {
    return raw(key, json_string(value));
  }
  JsonLine& integer(const std::string& key, int64_t value) {
    return raw(key, std::to_string(value));
  }
  JsonLine& number(const std::string& key, double value) { return raw(key, json_number(value)); }
  JsonLine& boolean(const std::string& key, bool value) {
    return raw(key, value ? "true" : "false");
  }
  JsonLine& integers(const std::string& key, const std::vector<int64_t>& values) {
    std::string list = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
      list += (i == 0 ? "" : ", ") + std::to_string(values[i]);
    return raw(key, list + "]");
  }
  JsonLine& numbers(const std::string& key, const std::vector<double>& values) {
    std::string list = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
      list += (i == 0 ? "" : ", ") + json_number(values[i]);
    return raw(key, list + "]");
  }
  /// Prints the line at once: the driver reads it while the program goes on.
  void print() const {
    std::printf("{%s}\n", fields_.c_str());
    std::fflush(stdout);
  }

 private:
  JsonLine& raw(const std::string& key, const std::string& value) {
    fields_ += (fields_.empty() ? "" : ", ") + json_string(key) + ": " + value;
    return *this;
  }
  std::string fields_;
};

}  // namespace ember::bench
