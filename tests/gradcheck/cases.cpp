// The case table (families concatenated) and the input builders the families use.
#include <stdexcept>

#include "gradcheck/gradcheck.h"
#include "support/op_values.h"

namespace ember::test {

const std::vector<GradCase>& grad_cases() {
  static const std::vector<GradCase> cases =
      concat({unary_grad_cases(), binary_grad_cases(), reduce_grad_cases(), layout_grad_cases(),
              indexing_grad_cases(), composite_grad_cases(), conv_grad_cases(), pool_grad_cases(),
              interpolate_grad_cases(), attention_grad_cases(), row_op_grad_cases()});
  return cases;
}

std::vector<GradCase> concat(std::initializer_list<std::vector<GradCase>> lists) {
  std::vector<GradCase> all;
  for (const std::vector<GradCase>& list : lists)
    all.insert(all.end(), list.begin(), list.end());
  return all;
}

std::vector<std::string> case_names(const std::vector<GradCase>& cases, bool ops_only) {
  std::vector<std::string> names;
  for (const GradCase& c : cases) {
    if (!ops_only || c.op) names.push_back(c.name);
  }
  return names;
}

const GradCase& find_case(std::string_view name, const std::vector<GradCase>& cases) {
  for (const GradCase& c : cases) {
    if (c.name == name) return c;
  }
  throw std::logic_error("[gradcheck] no case " + std::string(name));
}

TensorData reals(std::string_view tag, const Shape& shape, double lo, double hi) {
  return make_values(shape, DType::F64, ValueSpec{lo, hi}, seed_for(tag, 0));
}

TensorData positives(std::string_view tag, const Shape& shape) {
  return reals(tag, shape, 0.5, 2.0);
}

TensorData distinct(std::string_view tag, const Shape& shape, double lo, double step) {
  ValueSpec spec{lo, 0.0, step};
  spec.distinct = true;
  return make_values(shape, DType::F64, spec, seed_for(tag, 0));
}

TensorData f64(const std::vector<double>& values, const Shape& shape) {
  return TensorData(values, shape);
}

TensorData i64(const std::vector<int64_t>& values, const Shape& shape) {
  return TensorData(values, shape);
}

TensorData mask(const std::vector<double>& values, const Shape& shape) {
  return TensorData(values, shape, DType::Bool);
}

}  // namespace ember::test
