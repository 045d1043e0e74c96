#include "support/op_table.h"

#include <cctype>

#include "support/op_cases.h"

namespace ember::test {

bool contains(DTypes set, DType dtype) {
  const DTypes member = is_float(dtype)          ? DTypes::Float
                        : is_signed_int(dtype)   ? DTypes::SignedInt
                        : is_unsigned_int(dtype) ? DTypes::UnsignedInt
                                                 : DTypes::Bool;
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(member)) != 0;
}

const std::vector<OpCase>& op_table() {
  static const std::vector<OpCase> table = [] {
    std::vector<OpCase> all;
    for (auto family : {creation_cases, unary_cases, binary_cases, scalar_cases, compare_cases,
                        reduce_cases, layout_cases, index_cases, sort_cases, activation_cases,
                        conv_cases, pool_cases, interpolate_cases, attention_cases, row_op_cases}) {
      // Every case of these families is elementwise; activation_cases marks its own.
      const bool elementwise = family == unary_cases || family == binary_cases ||
                               family == scalar_cases || family == compare_cases;
      for (OpCase& c : family()) {
        c.elementwise = c.elementwise || elementwise;
        all.push_back(std::move(c));
      }
    }
    return all;
  }();
  return table;
}

const OpCase* find_op_case(std::string_view name) {
  for (const OpCase& c : op_table()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

ops::Handles run_case(const OpCase& op, const OpInputs& inputs, const OpTarget& target) {
  ops::Handles handles;
  for (const TensorData& data : inputs.tensors) {
    const TensorCreationOptions options =
        TensorCreationOptions(target.device).with_dtype(data.dtype());
    handles.push_back(ops::from_data(data, options, kind_of(data.dtype())));
  }
  return op.run(handles, inputs.args, target);
}

std::vector<TensorData> read_all(const ops::Handles& outputs) {
  std::vector<TensorData> data;
  for (const TensorHandle& h : outputs)
    data.push_back(ops::into_data(h));
  return data;
}

std::string test_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

}  // namespace ember::test
