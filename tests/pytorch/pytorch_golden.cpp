#include "pytorch/pytorch_golden.h"
#include "support/source_dir.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ember::test {
namespace {

using nlohmann::json;

DType dtype_named(const json& name) {
  const std::string s = name.get<std::string>();
  if (s == "f64") return DType::F64;
  if (s == "i64") return DType::I64;
  if (s == "bool") return DType::Bool;
  throw std::runtime_error("[pytorch_golden.json] unexpected dtype " + s);
}

/// A number, a bool, or one of the strings "nan", "inf", "-inf" that JSON cannot spell.
double value_of(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (!v.is_string()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::runtime_error("[pytorch_golden.json] not a number: " + s);
}

TorchTensor tensor_of(const json& t) {
  TorchTensor out{dtype_named(t.at("dtype")), t.at("shape").get<std::vector<int64_t>>(), {}};
  for (const json& v : t.at("data"))
    out.values.push_back(value_of(v));
  return out;
}

std::vector<TorchTensor> tensors_of(const json& list) {
  std::vector<TorchTensor> out;
  for (const json& t : list)
    out.push_back(tensor_of(t));
  return out;
}

TorchGolden case_of(const json& c) {
  TorchGolden out{c.at("name").get<std::string>(),
                  tensors_of(c.at("inputs")),
                  tensor_of(c.at("grad_output")),
                  tensors_of(c.at("outputs")),
                  {}};
  for (const json& g : c.at("grads"))
    out.grads.push_back(g.is_null() ? std::nullopt : std::optional(tensor_of(g)));
  if (out.grads.size() != out.inputs.size()) {
    throw std::runtime_error("[pytorch_golden.json] " + out.name + ": one grad per input needed");
  }
  return out;
}

std::vector<TorchGolden> load(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  const json golden = json::parse(file);
  std::vector<TorchGolden> cases;
  for (const json& c : golden.at("cases"))
    cases.push_back(case_of(c));
  return cases;
}

}  // namespace

TensorData TorchTensor::data(const Shape& as_shape) const {
  return {values, as_shape, dtype};
}

TensorData TorchTensor::data() const {
  return data(Shape(shape));
}

const std::vector<TorchGolden>& torch_goldens() {
  static const std::vector<TorchGolden> cases =
      load(ember::test::source_dir() + "/tests/pytorch/pytorch_golden.json");
  return cases;
}

const TorchGolden* find_torch_golden(std::string_view name) {
  const auto& cases = torch_goldens();
  const auto it = std::ranges::find_if(cases, [&](const TorchGolden& c) { return c.name == name; });
  return it == cases.end() ? nullptr : &*it;
}

}  // namespace ember::test
