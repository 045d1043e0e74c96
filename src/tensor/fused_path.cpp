// The calling thread's choice between the fused ops and their composites (fused_path.h).
#include "tensor/fused_path.h"

#include "tensor/check.h"
#include "tensor/tensor_impl.h"

namespace ember::tensor {
namespace {

thread_local FusedPath current_path = FusedPath::Backend;

}  // namespace

FusedPathScope::FusedPathScope(FusedPath path) : previous_(current_path) {
  current_path = path;
}

FusedPathScope::~FusedPathScope() {
  current_path = previous_;
}

FusedPath fused_path() {
  return current_path;
}

std::optional<bool> forced_fused() {
  switch (current_path) {
    case FusedPath::Fused:
      return true;
    case FusedPath::Composite:
      return false;
    case FusedPath::Backend:
      return std::nullopt;
  }
  return std::nullopt;
}

bool runs_fused_rows(const ir::Op& op, const TensorHandle& device_of,
                     std::span<const ir::TensorMeta> inputs, std::string_view name) {
  if (const std::optional<bool> forced = forced_fused()) return *forced;
  return impl_of(device_of, name).context->backend().runs_fused_rows(op, inputs);
}

std::vector<ir::TensorMeta> metas_of(const ops::Handles& inputs, std::string_view op) {
  std::vector<ir::TensorMeta> metas;
  metas.reserve(inputs.size());
  for (const TensorHandle& x : inputs)
    metas.push_back(impl_of(x, op).meta);
  return metas;
}

}  // namespace ember::tensor
