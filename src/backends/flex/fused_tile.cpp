#include "backends/flex/fused_tile.h"

#include <cstring>
#include <vector>

#include "backends/flex/simd.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "ember/error.h"
#include "ir/formulas.h"
#include "ir/scalar_math.h"

namespace ember::flex {
namespace {

using Args = std::span<const TileArg>;

template <typename T>
const T* elements(const TileArg& arg) {
  return reinterpret_cast<const T*>(arg.data);
}
template <typename T>
T* elements(std::byte* out) {
  return reinterpret_cast<T*>(out);
}

bool all_f32(Args args) {
  for (const TileArg& arg : args) {
    if (arg.dtype != DType::F32) return false;
  }
  return true;
}

/// out[i] = f(x[i]).
template <typename In, typename Out, typename F>
void map_tile(const TileArg& x, std::byte* out, int64_t n, F f) {
  const In* src = elements<In>(x);
  Out* dst = elements<Out>(out);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = f(src[i]);
}

/// The formulas' reference target (ir/formulas.h): the Bool ops, where, mask_fill and the casts
/// of a tile are its formulas, element by element.
template <typename T>
constexpr ::ember::formula::ScalarMath<T> kMath{};

bool is_logical(ir::BinaryOp op) {
  return !formula::is_float_binary(op);
}

/// out[i] = a[i] op b (b_step 0: one value) for a logical op of Bool tiles.
void logical_tile(ir::BinaryOp op, const bool* a, const bool* b, int64_t b_step, std::byte* out,
                  int64_t n) {
  bool* dst = elements<bool>(out);
  ir::visit_op(op, [&](auto kind) {
    for (int64_t i = 0; i < n; ++i)
      dst[i] = formula::logical<kind()>(kMath<float>, a[i], b[i * b_step]);
  });
}

/// op by its ndarray kernel on copies of the tile's arguments.
template <typename Op>
void run_reference(const Op& op, Args args, std::byte* out, DType dtype, int64_t n) {
  std::vector<TensorData> host;
  host.reserve(args.size());
  for (const TileArg& arg : args) {
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(arg.dtype);
    host.emplace_back(std::vector<std::byte>(arg.data, arg.data + bytes), Shape{n}, arg.dtype);
  }
  std::vector<const TensorData*> inputs;
  for (const TensorData& data : host)
    inputs.push_back(&data);
  const ir::TensorMeta output{Shape{n}, dtype};
  const TensorData result = ndarray::run(op, inputs, {&output, 1});
  std::memcpy(out, result.bytes().data(), result.bytes().size());
}

void tile(const ir::Unary& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (all_f32(args) && dtype == DType::F32 && simd::has_unary(op.op)) {
    return simd::unary(op.op, elements<float>(args[0]), elements<float>(out), n);
  }
  if (op.op == ir::UnaryOp::Not) {
    return map_tile<bool, bool>(args[0], out, n,
                                [](bool v) { return formula::bool_not(kMath<float>, v); });
  }
  run_reference(op, args, out, dtype, n);
}

void tile(const ir::Binary& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (dtype == DType::F32 && simd::has_binary(op.op)) {
    return simd::binary(op.op, elements<float>(args[0]), 1, elements<float>(args[1]), 1,
                        elements<float>(out), n);
  }
  if (is_logical(op.op))
    return logical_tile(op.op, elements<bool>(args[0]), elements<bool>(args[1]), 1, out, n);
  run_reference(op, args, out, dtype, n);
}

void tile(const ir::BinaryScalar& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (dtype == DType::F32 && simd::has_binary(op.op)) {
    const float value = ndarray::scalar_as<float>(op.value);
    const float* x = elements<float>(args[0]);
    return op.scalar_lhs ? simd::binary(op.op, &value, 0, x, 1, elements<float>(out), n)
                         : simd::binary(op.op, x, 1, &value, 0, elements<float>(out), n);
  }
  if (is_logical(op.op)) {
    const bool value = ndarray::scalar_as<bool>(op.value);  // logical ops commute
    return logical_tile(op.op, elements<bool>(args[0]), &value, 0, out, n);
  }
  run_reference(op, args, out, dtype, n);
}

void tile(const ir::Compare& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (all_f32(args)) {
    return simd::compare(op.op, elements<float>(args[0]), 1, elements<float>(args[1]), 1,
                         elements<bool>(out), n);
  }
  run_reference(op, args, out, dtype, n);
}

void tile(const ir::CompareScalar& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (all_f32(args)) {
    // A float tensor compares with the value rounded to its dtype, as ndarray's.
    const float value = ndarray::scalar_as<float>(op.value);
    return simd::compare(op.op, elements<float>(args[0]), 1, &value, 0, elements<bool>(out), n);
  }
  run_reference(op, args, out, dtype, n);
}

template <typename T>
void select(Args args, std::byte* out, int64_t n) {
  const bool* take_a = elements<bool>(args[0]);
  const T* a = elements<T>(args[1]);
  const T* b = elements<T>(args[2]);
  T* dst = elements<T>(out);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = formula::where(kMath<T>, take_a[i], a[i], b[i]);
}

void tile(const ir::Where& /*op*/, Args args, std::byte* out, DType dtype, int64_t n) {
  if (dtype == DType::F32) return select<float>(args, out, n);
  select<bool>(args, out, n);
}

template <typename T>
void fill_masked(const ir::MaskFill& op, Args args, std::byte* out, int64_t n) {
  const T value = ndarray::scalar_as<T>(op.value);
  const T* x = elements<T>(args[0]);
  const bool* mask = elements<bool>(args[1]);
  T* dst = elements<T>(out);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = formula::mask_fill(kMath<T>, x[i], mask[i], value);
}

void tile(const ir::MaskFill& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (dtype == DType::F32) return fill_masked<float>(op, args, out, n);
  fill_masked<bool>(op, args, out, n);
}

void tile(const ir::Cast& /*op*/, Args args, std::byte* out, DType dtype, int64_t n) {
  const DType from = args[0].dtype;
  if (from == dtype) {
    std::memmove(out, args[0].data, static_cast<std::size_t>(n) * dtype_size(dtype));
  } else if (from == DType::F32) {
    map_tile<float, bool>(args[0], out, n,
                          [](float v) { return formula::to_bool(kMath<float>, v); });
  } else {
    map_tile<bool, float>(args[0], out, n,
                          [](bool v) { return formula::from_bool(kMath<float>, v); });
  }
}

void tile(const ir::Activation& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (all_f32(args)) {
    return simd::activation(op, elements<float>(args[0]), elements<float>(out), n);
  }
  run_reference(op, args, out, dtype, n);
}

}  // namespace

void run_on_tile(const ir::Op& op, std::span<const TileArg> args, std::byte* out, DType dtype,
                 int64_t n) {
  std::visit(
      [&](const auto& o) {
        if constexpr (requires { tile(o, args, out, dtype, n); }) {
          tile(o, args, out, dtype, n);
        } else {
          throw ExecutionError("[flex] a fused program holds " + ir::name(o) +
                               ", which is not elementwise");
        }
      },
      op);
}

}  // namespace ember::flex
