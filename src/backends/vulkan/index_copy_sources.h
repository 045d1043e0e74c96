// The vulkan backend's kernel sources of data movement and indexing (full, cat, slice_assign,
// select, gather, select_assign, scatter): backends/shader/index_copy.h's kernels (what each
// computes, its parameter words and dispatches are written there, shared with wgpu), their text
// written once in backends/shader/index_copy_text.h and spelled in GLSL here, run by
// shader::IndexCopyKernel (backends/shader/index_copy_kernels.h). Tensors are bound as arrays of
// 32-bit words; 1- and 2-byte elements are parts of words, written by atomicAnd and atomicOr, so no
// 8- or 16-bit storage is needed.
#pragma once

#include "backends/shader/index_copy.h"

namespace ember::vulkan {

/// The GLSL kernels of data movement and indexing.
shader::IndexCopySources index_copy_sources();

}  // namespace ember::vulkan
