#include "interop/foreign_copy.h"

#include <cstring>
#include <vector>

#include "tensor/check.h"

namespace ember::interop {
namespace {

/// f(index, element) for each element of meta in row-major order: its index (one entry per dim)
/// and its bytes.
template <typename F>
void for_each_element(const backend::HostMemory& memory, const ir::TensorMeta& meta, F&& f) {
  const Shape& shape = meta.shape;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 0) return;
  }
  const auto element = static_cast<int64_t>(dtype_size(meta.dtype));
  std::vector<int64_t> index(shape.rank(), 0);
  int64_t offset = 0;  // in elements from element [0, ..., 0]; check_layout bounds every one
  while (true) {
    f(index, memory.data + offset * element);
    // Odometer: step the last dim, carrying into the ones before it.
    std::size_t d = shape.rank();
    while (d-- > 0) {
      if (index[d] + 1 < shape[d]) {
        ++index[d];
        offset += memory.strides[d];
        break;
      }
      offset -= (shape[d] - 1) * memory.strides[d];
      index[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

}  // namespace

TensorData copy_row_major(const backend::HostMemory& memory, const ir::TensorMeta& meta) {
  const std::size_t element = dtype_size(meta.dtype);
  std::vector<std::byte> bytes(static_cast<std::size_t>(meta.shape.num_elements()) * element);
  std::byte* out = bytes.data();
  for_each_element(memory, meta, [&](const std::vector<int64_t>&, const std::byte* in) {
    std::memcpy(out, in, element);
    out += element;
  });
  return TensorData(std::move(bytes), meta.shape, meta.dtype);
}

void check_bool_values(const backend::HostMemory& memory, const ir::TensorMeta& meta,
                       std::string_view op) {
  if (meta.dtype != DType::Bool) return;
  for_each_element(memory, meta, [&](const std::vector<int64_t>& index, const std::byte* in) {
    const auto value = static_cast<int>(*in);
    if (value > 1) tensor::fail(op, "Bool element ", Shape(index), " is ", value, ", not 0 or 1");
  });
}

}  // namespace ember::interop
