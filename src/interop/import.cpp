#include "interop/import.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "backends/element_span.h"
#include "core/device_context.h"
#include "core/tensor_bytes.h"
#include "ember/tensor_ops.h"
#include "interop/foreign_copy.h"
#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::interop {
namespace {

bool aligned_to_elements(const ForeignTensor& foreign) {
  const auto address = reinterpret_cast<std::uintptr_t>(foreign.memory.data);
  return address % dtype_size(foreign.meta.dtype) == 0;
}

/// Why device could not share foreign, for Copy::Never's refusal.
std::string why_copied(const ForeignTensor& foreign, const Device& device) {
  if (!aligned_to_elements(foreign)) {
    return "its data is not aligned to its " + std::to_string(dtype_size(foreign.meta.dtype)) +
           "-byte elements";
  }
  std::ostringstream device_name;
  device_name << device;
  return "device " + device_name.str() + " does not compute on foreign host memory";
}

/// foreign copied into a row-major tensor on device.
TensorHandle copied(const ForeignTensor& foreign, const Device& device) {
  const DType dtype = foreign.meta.dtype;
  return ops::from_data(copy_row_major(foreign.memory, foreign.meta),
                        TensorCreationOptions(device).with_dtype(dtype), kind_of(dtype));
}

/// Checks meta's shape: rank >= 1, no negative dim, bytes that fit in int64.
void check_shape(const ir::TensorMeta& meta, std::string_view op) {
  const Shape& shape = meta.shape;
  if (shape.rank() == 0) tensor::fail(op, "rank 0 (a scalar): ember tensors have rank >= 1");
  for (int64_t dim : shape.dims()) {
    if (dim < 0) tensor::fail(op, "shape ", shape, " has a negative dim");
  }
  if (!detail::checked_tensor_bytes(shape, meta.dtype)) {
    tensor::fail(op, "shape ", shape, " of dtype ", meta.dtype, ' ', detail::kTooLargeForInt64);
  }
}

/// Checks that the elements span reaches from foreign's data lie inside the address space (a
/// malformed stride or byte_offset could reach past it, and pointer arithmetic would then wrap).
void check_address_range(const ForeignTensor& foreign, const backend::ElementSpan& span,
                         std::string_view op) {
  const auto element = static_cast<int64_t>(dtype_size(foreign.meta.dtype));
  const auto address = reinterpret_cast<std::uintptr_t>(foreign.memory.data);
  // span's byte counts fit in int64 (check_strides), so these products do not overflow.
  const auto below = static_cast<std::uintptr_t>(-span.first * element);
  const auto above = static_cast<std::uintptr_t>((span.last + 1) * element);
  if (address < below || address > std::numeric_limits<std::uintptr_t>::max() - above) {
    tensor::fail(op, "strides ", Shape(foreign.memory.strides), " of shape ", foreign.meta.shape,
                 " reach outside the address space from data at ", foreign.memory.data);
  }
}

/// Checks foreign's strides against its (checked) shape: one per dim, reaching memory whose size
/// fits in int64, from data that is not null when there are elements. Gives row-major strides
/// where there are none.
void check_strides(ForeignTensor& foreign, std::string_view op) {
  const Shape& shape = foreign.meta.shape;
  if (foreign.memory.strides.empty()) foreign.memory.strides = shape.contiguous_strides();
  if (foreign.memory.strides.size() != shape.rank()) {
    tensor::fail(op, foreign.memory.strides.size(), " strides for shape ", shape, " of rank ",
                 shape.rank());
  }
  const std::optional<backend::ElementSpan> span =
      backend::element_span(shape, foreign.memory.strides);
  int64_t span_bytes = 0;
  if (!span ||
      __builtin_mul_overflow(span->count(), static_cast<int64_t>(dtype_size(foreign.meta.dtype)),
                             &span_bytes)) {
    tensor::fail(op, "strides ", Shape(foreign.memory.strides), " of shape ", shape,
                 " reach memory whose size does not fit in int64");
  }
  if (span->count() == 0) return;
  if (foreign.memory.data == nullptr) {
    tensor::fail(op, "null data for shape ", shape, " with ", shape.num_elements(), " elements");
  }
  check_address_range(foreign, *span, op);
}

}  // namespace

TensorHandle import_foreign(ForeignTensor foreign, const Device& device, Copy copy,
                            std::string_view op) {
  check_shape(foreign.meta, op);
  check_strides(foreign, op);
  check_bool_values(foreign.memory, foreign.meta, op);
  std::shared_ptr<detail::DeviceContext> context = detail::DeviceContext::of(device.as_dispatch());
  context->lock_settings();  // as every tensor created on a device does
  if (copy != Copy::Always && aligned_to_elements(foreign)) {
    if (backend::BufferPtr shared = context->wrap_host_memory(foreign.memory, foreign.meta, op))
      return detail::make_handle(device, std::move(context), foreign.meta, std::move(shared));
  }
  if (copy == Copy::Never) {
    tensor::fail(op, "cannot share the memory of shape ", foreign.meta.shape, " (",
                 why_copied(foreign, device), ") and copy is Copy::Never");
  }
  return copied(foreign, device);
}

}  // namespace ember::interop
