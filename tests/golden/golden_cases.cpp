#include "golden_cases.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ember::test {
namespace {

using nlohmann::json;

DType dtype_named(const json& name) {
  const auto dtype = dtype_from_name(name.get<std::string>());
  if (!dtype) throw std::runtime_error("[golden.json] unknown dtype " + name.dump());
  return *dtype;
}

/// A number, a bool, or one of the strings "nan", "inf", "-inf" that JSON cannot spell.
double value_of(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (!v.is_string()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::runtime_error("[golden.json] not a number: " + s);
}

/// {"dtype", "shape", "data"} as TensorData of dtype; its values pass through f64, exact for
/// every value the generator writes (small integers, reals at their dtype's precision).
TensorData tensor_of(const json& t, DType dtype) {
  std::vector<double> values;
  for (const json& v : t.at("data"))
    values.push_back(value_of(v));
  return {values, Shape(t.at("shape").get<std::vector<int64_t>>()), dtype};
}

std::vector<Slice> slices_of(const json& list) {
  std::vector<Slice> slices;
  for (const json& s : list) {
    auto bound = [](const json& b) {
      return b.is_null() ? std::nullopt : std::optional<int64_t>(b.get<int64_t>());
    };
    slices.emplace_back(bound(s.at(0)), bound(s.at(1)), s.at(2).get<int64_t>());
  }
  return slices;
}

ArgValue arg_of(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && !v.empty() && v.front().is_array()) return slices_of(v);
  if (v.is_array()) return v.get<std::vector<int64_t>>();
  throw std::runtime_error("[golden.json] unsupported argument " + v.dump());
}

GoldenCase case_of(const json& c) {
  GoldenCase out{c.at("name").get<std::string>(), dtype_named(c.at("dtype")), {}, {}};
  for (const auto& [key, value] : c.at("args").items())
    out.inputs.args.set(key, arg_of(value));
  for (const json& t : c.at("inputs")) {
    out.inputs.tensors.push_back(tensor_of(t, dtype_named(t.at("dtype"))));
  }
  for (const json& t : c.at("outputs")) {
    out.outputs.push_back({dtype_named(t.at("dtype")), tensor_of(t, DType::F64)});
  }
  return out;
}

std::vector<GoldenCase> load(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  const json golden = json::parse(file);
  std::vector<GoldenCase> cases;
  for (const json& c : golden.at("cases"))
    cases.push_back(case_of(c));
  return cases;
}

}  // namespace

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> cases = load(std::string(EMBER_GOLDEN_DIR) + "/golden.json");
  return cases;
}

}  // namespace ember::test
