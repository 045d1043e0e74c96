// ember's dtypes as DLPack's (code, bits, lanes) and back (include/ember/interop.h lists them).
#pragma once

#include <dlpack/dlpack.h>

#include <string_view>

#include "ember/dtype.h"

namespace ember::interop {

/// DLPack's code of a bool in DLPack >= 0.8 (kDLBool); the v0.6 header has no name for it.
inline constexpr uint8_t kDLBoolCode = 6;

/// dtype as DLPack v0.6 describes it: Bool as kDLUInt 8, as PyTorch 1.13 sends torch.bool.
DLDataType to_dlpack_dtype(DType dtype);

/// The ember dtype of a DLPack dtype; InvalidArgument "[op] dtype (code 5, bits 64, lanes 1) ..."
/// when there is none (complex, an opaque handle, lanes other than 1, bits the code lacks).
DType from_dlpack_dtype(const DLDataType& dtype, std::string_view op);

}  // namespace ember::interop
