// Command-line flags of the benchmark programs: "--name value" pairs and "--name" switches, each
// name known in advance.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ember::bench {

class Flags {
 public:
  /// Parses argv[1..argc). InvalidArgument "[flags] ..." for an argument that is neither one of
  /// known (spelled "--name") followed by a value nor one of switches (a "--name" alone), or for
  /// a name given twice.
  Flags(int argc, char** argv, const std::vector<std::string>& known,
        const std::vector<std::string>& switches = {});

  /// Whether --name (a flag or a switch) was given.
  bool has(const std::string& name) const { return values_.contains(name); }
  /// The value of --name, or fallback when it was not given.
  std::string text(const std::string& name, const std::string& fallback) const;
  /// The value of --name as an integer, or fallback; InvalidArgument when it is not one.
  int64_t integer(const std::string& name, int64_t fallback) const;
  /// The value of --name as a number, or fallback; InvalidArgument when it is not one.
  double number(const std::string& name, double fallback) const;
  /// The comma-separated integers of --name ("32,512,1024"); InvalidArgument when it is absent
  /// or malformed.
  std::vector<int64_t> integers(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace ember::bench
