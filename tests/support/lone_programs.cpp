#include "support/lone_programs.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "codegen/glsl_program.h"
#include "ember/error.h"
#include "ember/scalar.h"
#include "ember/shape.h"

namespace ember::test {

ir::Program lone_program(const ir::Op& op, std::vector<DType> dtypes) {
  std::vector<ir::TensorMeta> metas;
  for (const DType dtype : dtypes)
    metas.push_back({Shape{4}, dtype});
  return ir::lone_op_program(op, metas, ir::infer(op, metas)[0]);
}

std::vector<ir::Program> lone_programs(const std::vector<DType>& dtypes) {
  std::vector<ir::Program> programs;
  const auto add = [&](const ir::Op& op, std::vector<DType> inputs) {
    try {
      programs.push_back(lone_program(op, std::move(inputs)));
    } catch (const InvalidArgument&) {
      // An op ir does not take on these dtypes.
    }
  };
  for (const DType dtype : dtypes) {
    for (const ir::UnaryOp op : ir::all_ops<ir::UnaryOp>())
      add(ir::Unary{op}, {dtype});
    for (const ir::BinaryOp op : ir::all_ops<ir::BinaryOp>())
      add(ir::Binary{op}, {dtype, dtype});
    for (const ir::CompareOp op : ir::all_ops<ir::CompareOp>()) {
      add(ir::Compare{op}, {dtype, dtype});
      add(ir::CompareScalar{op, Scalar(2.5)}, {dtype});
    }
    for (const ir::ActivationOp op : ir::all_ops<ir::ActivationOp>())
      add(ir::Activation{op}, {dtype});
    for (const DType to : kAllDTypes)
      add(ir::Cast{to}, {dtype});
    add(ir::Where{}, {DType::Bool, dtype, dtype});
    add(ir::MaskFill{Scalar(int64_t{3})}, {dtype, DType::Bool});
    add(ir::BinaryScalar{ir::BinaryOp::Mul, Scalar(int64_t{-3})}, {dtype});
  }
  return programs;
}

std::vector<ir::Program> flat_lone_programs() {
  std::vector<ir::Program> programs;
  for (ir::Program& program : lone_programs({DType::F32, DType::I32, DType::U32}))
    if (codegen::has_flat_program_kernel(program)) programs.push_back(std::move(program));
  return programs;
}

}  // namespace ember::test
