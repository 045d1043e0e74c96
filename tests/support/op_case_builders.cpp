#include <utility>

#include "support/op_cases.h"
#include "tensor/dispatch.h"

namespace ember::test {

DTypes of_table(ir::DTypeSet dtypes) {
  switch (dtypes) {
    case ir::DTypeSet::Float:
      return DTypes::Float;
    case ir::DTypeSet::FloatOrSigned:
      return DTypes::FloatOrSigned;
    case ir::DTypeSet::Numeric:
      return DTypes::Numeric;
    case ir::DTypeSet::Bool:
      return DTypes::Bool;
    case ir::DTypeSet::Any:
      return DTypes::All;
  }
  return DTypes::None;  // not an enumerator
}

InputSpec drawn(Shape shape, ValueSpec values) {
  return {std::move(shape), values, {}, {}};
}

InputSpec drawn_as(DType dtype, Shape shape, ValueSpec values) {
  return {std::move(shape), values, dtype, {}};
}

InputSpec given(Shape shape, std::vector<double> values) {
  return {std::move(shape), {}, {}, std::move(values)};
}

InputSpec indices(Shape shape, std::vector<double> values) {
  return {std::move(shape), {}, DType::I64, std::move(values)};
}

ArgsFor fixed_args(OpArgs args) {
  return [args = std::move(args)](DType) { return args; };
}

ArgValue kind_value(DType dtype, double real, int64_t integer) {
  if (is_float(dtype)) return real;
  if (is_bool(dtype)) return integer != 0;
  return integer;
}

OpCase make_case(std::string name, DTypes dtypes, std::vector<InputSpec> inputs, OpRun run,
                 ArgsFor args) {
  auto make_inputs = [name, inputs = std::move(inputs), args = std::move(args)](DType dtype) {
    OpInputs out{{}, args(dtype)};
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const InputSpec& spec = inputs[i];
      const DType input_dtype = spec.dtype.value_or(dtype);
      out.tensors.push_back(spec.fixed.empty() ? make_values(spec.shape, input_dtype, spec.values,
                                                             seed_for(name, static_cast<int>(i)))
                                               : TensorData(spec.fixed, spec.shape, input_dtype));
    }
    return out;
  };
  return {std::move(name), dtypes, std::move(make_inputs), std::move(run)};
}

OpCase gradient_case(std::string name, ir::Op grad, const ir::Op& forward, const Shape& x,
                     ValueSpec values) {
  const ir::TensorMeta meta{x, DType::F32};
  const Shape grad_output = ir::infer(forward, {&meta, 1})[0].shape;
  OpRun run = [grad = std::move(grad)](const ops::Handles& in, const OpArgs&,
                                       const OpTarget&) -> ops::Handles {
    return {tensor::run_one(grad, {in.at(0)})};
  };
  OpCase c =
      make_case(std::move(name), DTypes::Float, {drawn(grad_output, values)}, std::move(run));
  c.has_golden = false;
  return c;
}

OpRun run_unary(UnaryFn fn) {
  return [fn](const ops::Handles& in, const OpArgs&, const OpTarget&) -> ops::Handles {
    return {fn(in.at(0))};
  };
}

OpRun run_binary(BinaryFn fn) {
  return [fn](const ops::Handles& in, const OpArgs&, const OpTarget&) -> ops::Handles {
    return {fn(in.at(0), in.at(1))};
  };
}

OpRun run_scalar(ScalarFn fn, std::string key) {
  return [fn, key](const ops::Handles& in, const OpArgs& args, const OpTarget&) -> ops::Handles {
    return {fn(in.at(0), args.scalar(key))};
  };
}

OpRun run_dim(DimFn fn) {
  return [fn](const ops::Handles& in, const OpArgs& args, const OpTarget&) -> ops::Handles {
    return {fn(in.at(0), args.integer("dim"))};
  };
}

}  // namespace ember::test
