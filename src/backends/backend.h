// The interface every backend implements: kernels and device mechanics, no policy. Argument
// checking, dtype promotion and shape rules happen above (Tensor API and ir::infer), so a
// backend may assume its inputs satisfy the op's rule. Optional capabilities default to
// "not supported".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/inline_vector.h"
#include "ember/device_settings.h"
#include "ember/memory.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::backend {

/// A backend's storage for one tensor. Each backend derives its own.
class Buffer {
 public:
  virtual ~Buffer() = default;
};
using BufferPtr = std::shared_ptr<Buffer>;
/// An op's result buffers, one per output: held inline for up to two outputs (every op but a
/// few has one), so that returning them allocates nothing.
using Outputs = detail::InlineVector<BufferPtr, 2>;

/// What a backend fuses: the fusion decorator (src/fusion) queues an elementwise op, to run later
/// as part of an ir::Program, only when the op, its dtypes and its rank are inside this, and the
/// op cannot fail on its data (fusible.cpp: a deferred op must not move an error away from the
/// call that caused it). The default fuses nothing: every op runs at once.
struct FusionSupport {
  /// The element types a program's inputs, results and outputs may have. Empty: nothing fuses.
  std::vector<DType> dtypes;
  /// The largest rank of a program's shape.
  std::size_t max_rank = 0;
  /// Whether the backend fuses op (an elementwise op: Unary, Binary, BinaryScalar, Compare,
  /// CompareScalar, Where, MaskFill, Cast or Activation). Null: every one of them.
  bool (*fuses_op)(const ir::Op& op) = nullptr;
  /// Whether execute_fused runs a program as one pass. Otherwise the decorator still queues
  /// the ops above and runs each program's instructions one by one through execute.
  bool runs_programs = false;
  /// Whether programs may hold an Expand: an identity whose argument, a program input, broadcasts
  /// into the program's shape (ir/program.h). For a backend whose expands are copies (no strided
  /// views), an expand read only by elementwise ops then costs nothing.
  bool fuses_expand = false;
};

/// A point in a device's queue on the device's clock: the moment the work submitted before it
/// finished. Resolving it waits for that work.
class DeviceTimestamp {
 public:
  virtual ~DeviceTimestamp() = default;
  /// Seconds on the device clock from earlier (a timestamp of the same device) to this one; waits
  /// for both. Throws ExecutionError when the device failed.
  virtual double seconds_since(const DeviceTimestamp& earlier) const = 0;
};

/// One input of an op: its storage and metadata.
struct Operand {
  BufferPtr buffer;
  ir::TensorMeta meta;
};

/// A tensor's elements in host memory, shared without a copy between a backend and what lies
/// outside it (DLPack, another backend's buffers: src/interop, to_device). Element [i0, ..., ik]
/// lies at data + (i0 * strides[0] + ... + ik * strides[k]) * the dtype's size; data is aligned
/// to the element size. Note: ember never writes into such memory (ops make new buffers), but
/// whoever it is shared with may.
struct HostMemory {
  std::byte* data = nullptr;     ///< element [0, ..., 0] (null when the tensor has no element)
  std::vector<int64_t> strides;  ///< elements between neighbours along each dim (any sign)
  /// Keeps the memory alive; the memory is released when the last copy of owner dies.
  std::shared_ptr<void> owner;
};

class Backend {
 public:
  virtual ~Backend() = default;

  /// "ndarray", "flex", ...
  virtual std::string name() const = 0;
  /// A human-readable description of the hardware ("reference CPU (plain loops)").
  virtual std::string description() const = 0;
  virtual bool supports_dtype(DType dtype) const = 0;
  /// The settings a fresh device of this backend starts with.
  virtual DeviceSettings default_settings() const { return {}; }
  /// The device's settings as Device::configure leaves them (called once, before any op). A
  /// backend reads what concerns it (cuda: f32_matmul_precision); the default reads nothing. A
  /// DeviceError refuses them (remote: the server's device refused), the settings then unchanged.
  virtual void apply_settings(const DeviceSettings& /*settings*/) {}

  /// Runs op. inputs satisfy ir::infer(op); outputs is what it returned. Returns one buffer per
  /// output. Throws InvalidArgument for data-dependent errors (an index out of range, an
  /// integer division by zero) and ExecutionError when the device fails.
  virtual Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                          std::span<const ir::TensorMeta> outputs) = 0;
  /// What the fusion decorator may queue and hand to execute_fused (FusionSupport).
  virtual FusionSupport fusion_support() const { return {}; }
  /// Runs program (ir/program.h) as one pass over shape: inputs[k] is program input k (any
  /// layout, broadcastable to shape), constants the scalars of its instructions. Returns one
  /// buffer per program output, of shape and that output's dtype. Called only when
  /// fusion_support().runs_programs.
  virtual Outputs execute_fused(const ir::Program& program, std::span<const Operand> inputs,
                                std::span<const Scalar> constants, const Shape& shape);
  /// Whether this backend runs op on inputs (q, k, v and the optional mask, as ir::infer accepts
  /// them) in a fused kernel of its own: ops::scaled_dot_product_attention then emits
  /// ir::Attention instead of its composite of matmul and softmax. Default: no (execute still
  /// runs the op when it arrives, through ndarray's kernel or a composition).
  virtual bool runs_fused_attention(const ir::Attention& /*op*/,
                                    std::span<const ir::TensorMeta> /*inputs*/) const {
    return false;
  }
  /// Whether this backend runs op, a fused row op (ir::LayerNorm or ir::CrossEntropy, and its
  /// gradient op; ir::SoftmaxGrad) on inputs as ir::infer accepts them, in kernels of its own:
  /// layer_norm, rms_norm, cross_entropy and softmax's backward rule then emit it instead of
  /// their composites. Default: no (execute still runs the ops when they arrive, through
  /// ndarray's kernels).
  virtual bool runs_fused_rows(const ir::Op& /*op*/,
                               std::span<const ir::TensorMeta> /*inputs*/) const {
    return false;
  }
  /// Copies host data into a new buffer.
  virtual BufferPtr write(const TensorData& data) = 0;
  /// A new buffer of meta's shape and dtype (meta passed ir's size rule) whose bytes fill writes,
  /// every one, in row-major order: host data made straight into the device's memory (an upload
  /// read from a socket). What fill throws passes through, the buffer then freed. Default: fill
  /// writes into host memory that write copies; a backend whose buffers are host memory hands fill
  /// the buffer itself, from its pools.
  virtual BufferPtr write_from(const ir::TensorMeta& meta,
                               const std::function<void(std::span<std::byte>)>& fill);
  /// Copies a buffer back to the host (waits for the work producing it).
  virtual TensorData read(const Operand& operand) = 0;

  // Zero-copy sharing of host memory (optional): a backend whose buffers are host memory shares
  // them, one that can compute on foreign host memory wraps it. A tensor then moves between two
  // such backends, or to and from DLPack, without a copy.

  /// operand's elements, computed first (waits for the work producing them), with an owner
  /// holding operand's buffer; nullopt when this backend's buffers are not host memory (default).
  virtual std::optional<HostMemory> share_host_memory(const Operand& operand);
  /// A buffer of meta's shape and dtype over memory, holding memory.owner while it lives (and
  /// never writing into it); null when this backend cannot compute on foreign host memory
  /// (default) or on memory laid out so (the caller then copies). memory's strides have meta's
  /// rank, its elements lie in memory the owner keeps, and meta passed ir's size rule.
  virtual BufferPtr wrap_host_memory(const HostMemory& memory, const ir::TensorMeta& meta);

  /// Waits for all submitted work. Default: nothing is ever pending.
  virtual void sync() {}
  /// Submits buffered work without waiting. Default: nothing is buffered.
  virtual void flush() {}
  /// A timestamp after the work submitted so far, without waiting for it; nullptr on a backend
  /// without a device clock (profile then uses the wall clock between two syncs).
  virtual std::shared_ptr<DeviceTimestamp> record_timestamp() { return nullptr; }

  /// Memory statistics; nullopt on a backend without pools.
  virtual std::optional<std::vector<SlicedPoolReport>> memory_pool_report() const {
    return std::nullopt;
  }
  virtual std::optional<MemoryPoolUsage> memory_pool_usage() const { return std::nullopt; }
  virtual void memory_cleanup() {}
  /// Persistent allocations (exact-size, never pooled: for weights) on the calling thread from
  /// begin to the matching end. Scopes nest: an end restores the mode of the enclosing scope.
  /// Default: no pools, nothing to change.
  virtual void begin_persistent_allocations() {}
  /// Ends the innermost scope. Must not throw: it runs when a scope unwinds.
  virtual void end_persistent_allocations() noexcept {}
  /// Prepares host data for upload (pinned memory, ...). Default: nothing to do.
  virtual void staging(std::span<TensorData*> /*data*/) {}
};

}  // namespace ember::backend
