// Which path a public function with a fused op behind it takes: scaled_dot_product_attention
// (ir::Attention, src/tensor/attention.cpp), layer_norm and rms_norm (ir::LayerNorm) and
// cross_entropy (ir::CrossEntropy, src/tensor/fused_rows.cpp). Each emits its fused op where the
// device's backend runs it (Backend::runs_fused_attention, Backend::runs_fused_rows) and nothing
// asks for more than the op computes, else its composite of ir ops, the fused op's oracle. A
// scope may force either path on the calling thread, so that tests compare the two on any device
// (ndarray runs the fused ops with its reference kernels).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::tensor {

enum class FusedPath : uint8_t {
  Backend,    ///< the backend's choice (the default)
  Fused,      ///< the fused op wherever it takes the arguments
  Composite,  ///< always the composite
};

/// Sets the calling thread's path for its lifetime, then restores the previous one.
class FusedPathScope {
 public:
  explicit FusedPathScope(FusedPath path);
  ~FusedPathScope();
  FusedPathScope(const FusedPathScope&) = delete;
  FusedPathScope& operator=(const FusedPathScope&) = delete;

 private:
  FusedPath previous_;
};

/// The calling thread's path.
FusedPath fused_path();
/// true or false where the calling thread's scope forces the path, nullopt for the backend's
/// choice.
std::optional<bool> forced_fused();
/// Whether the fused row op op runs on inputs (their metadata, before they are made): forced by
/// the calling thread's scope, else as the backend of device_of's device says
/// (Backend::runs_fused_rows).
bool runs_fused_rows(const ir::Op& op, const TensorHandle& device_of,
                     std::span<const ir::TensorMeta> inputs, std::string_view name);
/// The metadata of inputs (op names the caller in messages).
std::vector<ir::TensorMeta> metas_of(const ops::Handles& inputs, std::string_view op);

}  // namespace ember::tensor
