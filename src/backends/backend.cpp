// Backend defaults that need the op IR, or that say a capability is missing.
#include "backends/backend.h"

#include "ember/error.h"

namespace ember::backend {

Outputs Backend::execute_fused(const ir::Program& /*program*/, std::span<const Operand> /*inputs*/,
                               std::span<const Scalar> /*constants*/, const Shape& /*shape*/) {
  throw ExecutionError("[" + name() + "] does not run fused programs");
}

std::optional<HostMemory> Backend::share_host_memory(const Operand& /*operand*/) {
  return std::nullopt;
}

BufferPtr Backend::write_from(const ir::TensorMeta& meta,
                              const std::function<void(std::span<std::byte>)>& fill) {
  TensorData data = TensorData::uninitialized(meta.shape, meta.dtype);
  fill(data.bytes_mut());
  return write(data);
}

BufferPtr Backend::wrap_host_memory(const HostMemory& /*memory*/, const ir::TensorMeta& /*meta*/) {
  return nullptr;
}

}  // namespace ember::backend
