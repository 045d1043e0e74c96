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

std::vector<ir::Program> flat_lone_programs() {
  std::vector<ir::Program> programs;
  const auto add = [&](const ir::Op& op, std::vector<DType> dtypes) {
    try {
      ir::Program program = lone_program(op, std::move(dtypes));
      if (codegen::has_flat_program_kernel(program)) programs.push_back(std::move(program));
    } catch (const InvalidArgument&) {
      // An op ir does not take on these dtypes.
    }
  };
  for (const DType dtype : {DType::F32, DType::I32, DType::U32}) {
    for (const ir::UnaryOp op : ir::all_ops<ir::UnaryOp>())
      add(ir::Unary{op}, {dtype});
    for (const ir::BinaryOp op : ir::all_ops<ir::BinaryOp>())
      add(ir::Binary{op}, {dtype, dtype});
    for (const ir::ActivationOp op : ir::all_ops<ir::ActivationOp>())
      add(ir::Activation{op}, {dtype});
    for (const DType to : {DType::F32, DType::I32, DType::U32})
      add(ir::Cast{to}, {dtype});
    add(ir::BinaryScalar{ir::BinaryOp::Mul, Scalar(int64_t{-3})}, {dtype});
  }
  return programs;
}

}  // namespace ember::test
