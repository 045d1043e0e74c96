// Zero-copy interop: ember tensors shared with PyTorch, NumPy, JAX, CuPy or any DLPack-speaking
// library without a copy, in both directions, and tensors built over memory ember did not
// allocate. DLPack (https://github.com/dmlc/dlpack) is the C struct these libraries exchange:
// a DLManagedTensor holds a pointer, shape, strides (in elements), dtype and device, and a
// deleter its consumer calls once when done. ember speaks the v0.6 ABI (Debian's
// libdlpack-dev, the one PyTorch 1.13 vendors as ATen/dlpack.h); include <dlpack/dlpack.h> (or
// ATen's) to read the struct. docs/interop.md has the whole story.
//
// Memory: only host memory is shared (DLPack device kDLCPU), on the devices that keep tensors in
// it. to_dlpack works on ndarray, flex and cpu; from_dlpack / from_external share memory on flex
// and cpu, and copy onto any other device (ndarray's kernels read buffers that own their bytes).
// kDLCUDA / kDLCUDAHost tensors are refused for now; they could map to ember's cuda device.
//
// Values and writes: ember never writes into a tensor's memory once it is computed (no op
// writes into its inputs), so sharing is safe for ember. The other side may write: a write
// there is seen by every ember tensor sharing the memory (ember keeps no copy of it), and is
// the writer's to synchronise with ember's readers.
//
// Layouts: DLPack strides are in elements. to_dlpack exports a tensor's layout as it is (flex and
// cpu keep transposes, slices and expands as strided views: strides may be 0) unless a stride is
// negative (a flip on flex), which PyTorch cannot hold: such a tensor is exported as a row-major
// copy, which the ember tensor then does not see written. from_dlpack accepts any strides, null
// (row-major) included; flex and cpu keep them as a view (negative and 0 strides too), other
// devices copy into a row-major tensor.
//
// Dtypes: kDLFloat 16/32/64 (F16, F32, F64), kDLBfloat 16 (BF16), kDLInt 8/16/32/64 (I8..I64),
// kDLUInt 8/16/32/64 (U8..U64), with lanes 1. DLPack 0.6 has no bool: ember exports Bool as
// kDLUInt 8 (PyTorch 1.13 then sees a uint8 tensor of 0 and 1; it refuses to export torch.bool
// itself, so send .to(torch.uint8) and cast to Bool in ember) and imports kDLUInt 8 as U8; the
// kDLBool code of DLPack >= 0.8 (6, bits 8) imports as Bool.
// Complex, opaque handles and vector lanes are refused.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/shape.h"
#include "ember/tensor_handle.h"

struct DLManagedTensor;  // <dlpack/dlpack.h>

namespace ember::interop {

/// Whether an import (from_dlpack, from_external) may copy the memory it is given.
enum class Copy : uint8_t {
  /// Share where the device computes on the memory as laid out, copy otherwise (the default).
  IfNeeded,
  /// Share, or throw InvalidArgument saying why a copy would be needed.
  Never,
  /// Always copy (into a row-major tensor), releasing the memory at once.
  Always,
};

/// A new DLManagedTensor sharing tensor's memory (a queued value is computed first). The caller
/// owns it and calls its deleter once when done; tensor's memory stays alive until then, even
/// after every ember tensor over it is gone. ndim is tensor's rank, device kDLCPU,
/// byte_offset 0 (data points at element [0, ..., 0], as PyTorch's consumer expects), strides
/// always given. InvalidArgument "[to_dlpack] ..." when tensor is undefined or its device keeps
/// its memory off the host (cuda: move it with to_device(Device::cpu()) first).
DLManagedTensor* to_dlpack(const TensorHandle& tensor);

/// A tensor over managed's memory on device (its autodiff flag included), sharing it when
/// device computes on host memory laid out so (see the header comment), copying it otherwise as
/// copy allows. from_dlpack owns managed from the call on: it calls managed's deleter exactly
/// once, when the last ember tensor sharing the memory dies, at once after a copy, or before
/// throwing. InvalidArgument "[from_dlpack] ..." naming the field when managed is null or
/// malformed (ndim below 1, as ember tensors have rank >= 1; a null shape; a negative dim; a
/// size or stride span that overflows int64; null data with elements), when its device is not
/// kDLCPU, its dtype has no ember dtype, a Bool byte is neither 0 nor 1, or copy is Never and a
/// copy is needed.
TensorHandle from_dlpack(DLManagedTensor* managed, const Device& device,
                         Copy copy = Copy::IfNeeded);
/// from_dlpack on Device::cpu() (ConfigError, managed released, where the cpu backend is not
/// compiled in).
TensorHandle from_dlpack(DLManagedTensor* managed);

/// Memory ember did not allocate, for from_external.
struct ExternalMemory {
  /// Element [0, ..., 0]; may be null when the shape has no element.
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::F32;
  /// Elements between neighbours along each dim (any sign); empty: row-major.
  std::vector<int64_t> strides;
  /// Called once with data when ember no longer needs the memory; empty when the memory outlives
  /// every tensor over it.
  std::function<void(void* data)> deleter;
};

/// A tensor over memory on device, shared or copied as from_dlpack does, with the same ownership:
/// memory.deleter runs exactly once, when the last ember tensor sharing the memory dies, at once
/// after a copy, or before throwing. InvalidArgument "[from_external] ..." for a shape of rank 0
/// or with a negative dim, strides of another rank, a layout whose size overflows int64, null
/// data with elements, a Bool byte neither 0 nor 1, or copy Never where a copy is needed.
TensorHandle from_external(ExternalMemory memory, const Device& device, Copy copy = Copy::IfNeeded);

}  // namespace ember::interop
