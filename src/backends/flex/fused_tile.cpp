#include "backends/flex/fused_tile.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "backends/flex/simd.h"
#include "backends/ndarray/element.h"
#include "backends/ndarray/kernels.h"
#include "ember/error.h"

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

/// out[i] = f(a[i], b[i]) over Bool tiles.
template <typename F>
void zip_bools(const TileArg& a, const TileArg& b, std::byte* out, int64_t n, F f) {
  const bool* lhs = elements<bool>(a);
  const bool* rhs = elements<bool>(b);
  bool* dst = elements<bool>(out);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = f(lhs[i], rhs[i]);
}

/// The Bool logic of And, Or and Xor (the other ops take no Bool values).
bool logical(ir::BinaryOp op, bool a, bool b) {
  switch (op) {
    case ir::BinaryOp::And:
      return a && b;
    case ir::BinaryOp::Or:
      return a || b;
    case ir::BinaryOp::Xor:
      return a != b;
    case ir::BinaryOp::Add:
    case ir::BinaryOp::Sub:
    case ir::BinaryOp::Mul:
    case ir::BinaryOp::Div:
    case ir::BinaryOp::Rem:
    case ir::BinaryOp::Pow:
    case ir::BinaryOp::Maximum:
    case ir::BinaryOp::Minimum:
      break;
  }
  throw std::logic_error("[fusion] a Bool tile of a non-logical op");
}

bool is_logical(ir::BinaryOp op) {
  return op == ir::BinaryOp::And || op == ir::BinaryOp::Or || op == ir::BinaryOp::Xor;
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
  if (op.op == ir::UnaryOp::Not)
    return map_tile<bool, bool>(args[0], out, n, [](bool v) { return !v; });
  run_reference(op, args, out, dtype, n);
}

void tile(const ir::Binary& op, Args args, std::byte* out, DType dtype, int64_t n) {
  if (dtype == DType::F32 && simd::has_binary(op.op)) {
    return simd::binary(op.op, elements<float>(args[0]), 1, elements<float>(args[1]), 1,
                        elements<float>(out), n);
  }
  if (is_logical(op.op)) {
    return zip_bools(args[0], args[1], out, n,
                     [&](bool a, bool b) { return logical(op.op, a, b); });
  }
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
    return map_tile<bool, bool>(args[0], out, n, [&](bool v) { return logical(op.op, v, value); });
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
    dst[i] = take_a[i] ? a[i] : b[i];
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
    dst[i] = mask[i] ? value : x[i];
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
                          [](float v) { return detail::convert_element<bool>(v); });
  } else {
    map_tile<bool, float>(args[0], out, n,
                          [](bool v) { return detail::convert_element<float>(v); });
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
