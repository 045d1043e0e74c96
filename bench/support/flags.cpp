#include "support/flags.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <system_error>

#include "ember/error.h"

namespace ember::bench {

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw InvalidArgument("[flags] " + message);
}

/// text as a whole T, or InvalidArgument naming the flag.
template <typename T>
T parse(std::string_view text, const std::string& name) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || text.empty())
    fail("--" + name + ": '" + std::string(text) + "' is not a number of the expected kind");
  return value;
}

}  // namespace

Flags::Flags(int argc, char** argv, const std::vector<std::string>& known,
             const std::vector<std::string>& switches) {
  const auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const std::string name(arg.substr(std::min<std::size_t>(2, arg.size())));
    const bool is_switch = arg.starts_with("--") && listed(switches, name);
    if (!is_switch && (!arg.starts_with("--") || !listed(known, name)))
      fail("unknown argument '" + std::string(arg) + "'");
    if (!is_switch && i + 1 >= argc) fail("--" + name + " needs a value");
    if (!values_.emplace(name, is_switch ? "" : argv[++i]).second)
      fail("--" + name + " given twice");
  }
}

std::string Flags::text(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

int64_t Flags::integer(const std::string& name, int64_t fallback) const {
  return has(name) ? parse<int64_t>(values_.at(name), name) : fallback;
}

double Flags::number(const std::string& name, double fallback) const {
  return has(name) ? parse<double>(values_.at(name), name) : fallback;
}

std::vector<int64_t> Flags::integers(const std::string& name) const {
  if (!has(name)) fail("--" + name + " is required");
  std::vector<int64_t> out;
  std::string_view rest = values_.at(name);
  while (true) {
    const std::size_t comma = rest.find(',');
    out.push_back(parse<int64_t>(rest.substr(0, comma), name));
    if (comma == std::string_view::npos) return out;
    rest.remove_prefix(comma + 1);
  }
}

}  // namespace ember::bench
