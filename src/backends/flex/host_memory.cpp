#include "backends/flex/host_memory.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "backends/element_span.h"

namespace ember::flex {

backend::HostMemory share_view(const View& view, backend::BufferPtr owner) {
  // Note: const_cast, since ember never writes a storage after its kernel returned, but the
  // memory is shared to be written by whoever receives it (src/interop).
  return {const_cast<std::byte*>(view.bytes()), view.strides, std::move(owner)};
}

std::optional<View> view_over(const backend::HostMemory& memory, const ir::TensorMeta& meta) {
  const std::size_t element = dtype_size(meta.dtype);
  if (reinterpret_cast<std::uintptr_t>(memory.data) % element != 0) return std::nullopt;
  const std::optional<backend::ElementSpan> span =
      backend::element_span(meta.shape, memory.strides);
  if (!span) return std::nullopt;
  if (span->count() == 0) return OutputTensor(meta).view();  // nothing to share
  // The storage starts at the lowest element reached, which a negative stride puts before
  // element [0, ..., 0].
  std::byte* lowest = memory.data + span->first * static_cast<int64_t>(element);
  auto storage = std::make_shared<const Storage>(
      lowest, static_cast<std::size_t>(span->count()) * element, memory.owner);
  return View{std::move(storage), -span->first, memory.strides, meta.shape, meta.dtype};
}

}  // namespace ember::flex
