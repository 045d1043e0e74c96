// The shader backends' kernels of data movement and indexing (full, arange, cat, slice_assign,
// select, gather, select_assign, scatter), written once: which kernel, its parameter words and its
// invocations for each op. Only the kernels' sources differ between vulkan and wgpu
// (index_copy_sources.cpp of each). Every kernel sees its tensors as arrays of 32-bit words and
// moves elements as bits: a 4-byte element is a word, an 8-byte one two, a 1- or 2-byte one a
// part of a word, written by atomicAnd and atomicOr (so neighbours written by other invocations
// stay intact, and no 8- or 16-bit storage is needed). The kernels:
//   Copy          dst[to(c)] = src[from(c)] for each c of a walked shape, from and to an offset
//                 plus c's dot product with strides; with an index tensor, from also adds
//                 index[at(c)] times a stride (select, gather);
//   Update        after a Copy of x into out: one invocation per values element; the first
//                 along dim of those whose index names the same element of out (its position
//                 but dim equal) takes x's element, then each of those values in order along
//                 dim, assigned or added, and stores it; the others store nothing
//                 (select_assign, scatter: ndarray's order, so the last write wins and sums are
//                 ndarray's, duplicates included, and no two invocations write one element);
//   CheckIndices  the first index outside [0, size) (or none), read back by the backend, which
//                 then throws ndarray's error: a kernel cannot throw, and nothing is written out
//                 of bounds;
//   Arange        d[i] = start + i * step, for start, end and step within 32-bit integers: every
//                 value then fits one, so 32-bit wrapping arithmetic gives it exactly (its low
//                 word; the high word of an 8-byte element is the sign's);
//   Fill          d[i] = the value's bits (full), which travel in the parameter words: converted
//                 to the dtype on the host once, by ndarray's conversion (scalar_as).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "backends/ndarray/element.h"
#include "backends/shader/device_limits.h"
#include "ember/dtype.h"
#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::shader {

/// The invocations of a workgroup of every index-copy kernel.
constexpr uint64_t kIndexCopyWorkgroup = 256;
/// The most dims a kernel walks (its parameter block has room for this many).
constexpr std::size_t kIndexCopyMaxRank = 8;

enum class IndexCopyKind : uint8_t { Copy, Update, CheckIndices, Arange, Fill };
/// How Update combines a value with what is there: as ndarray's IndexUpdate, Add on f32 or on
/// 32-bit integers (the same wrapping bits for i32 and u32).
enum class Combine : uint8_t { Assign, AddF32, AddInt32 };

/// Which kernel source: its kind, the bytes of its elements (1, 2, 4, 8), of its index elements
/// (0: none; 4, 8) and its combination (Update).
struct IndexCopyKey {
  IndexCopyKind kind = IndexCopyKind::Copy;
  uint32_t element_bytes = 4;
  uint32_t index_bytes = 0;
  Combine combine = Combine::Assign;
};

/// A language's sources of the kernels, one function of the key per kind.
struct IndexCopySources {
  using Source = std::string (*)(const IndexCopyKey&);
  Source copy;
  Source update;
  Source check_indices;
  Source arange;
  Source fill;

  std::string of(const IndexCopyKey& key) const {
    switch (key.kind) {
      case IndexCopyKind::Copy:
        return copy(key);
      case IndexCopyKind::Update:
        return update(key);
      case IndexCopyKind::CheckIndices:
        return check_indices(key);
      case IndexCopyKind::Arange:
        return arange(key);
      case IndexCopyKind::Fill:
        return fill(key);
    }
    return {};
  }
};

/// The workgroups of a dispatch of one invocation per element (at most max_groups: the kernels
/// loop over the rest).
inline uint32_t groups_for(uint64_t elements, uint32_t max_groups) {
  const uint64_t groups = (elements + kIndexCopyWorkgroup - 1) / kIndexCopyWorkgroup;
  return static_cast<uint32_t>(std::min<uint64_t>(groups, max_groups));
}

/// One dispatch: its kernel, its parameter words, its invocations (each loops over the elements
/// of the invocations that are not started: at most max_groups workgroups).
struct IndexCopyDispatch {
  IndexCopyKey key;
  std::vector<uint32_t> words;
  uint64_t elements = 0;
};

// Parameter words of Copy: n, rank, from's offset, to's offset, the index's stride in from,
// then the walked dims, from's strides, to's strides and the index's strides (8 words each, from
// word 8). Of Update: n (values' elements), rank, dim, K (the length along dim of values), then
// values' dims, x's strides, the index's strides and values' strides. Of CheckIndices: n, size. Of
// Arange: n, start, step (as the bits of 32-bit integers). Of Fill: n, the value's low word and its
// high word (an 8-byte element's; a 1- or 2-byte element is the low bits of the low word).
constexpr uint32_t kWordsHead = 8;

/// The element (or index element) bytes the kernels move: 1, 2, 4, 8.
inline bool moves_dtype(DType dtype) {
  const std::size_t bytes = dtype_size(dtype);
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}
/// The index dtypes the kernels read: 32- and 64-bit integers.
inline bool reads_index(DType dtype) {
  return dtype == DType::I32 || dtype == DType::I64 || dtype == DType::U32 || dtype == DType::U64;
}

/// Whether a kernel of this many elements, loop turns per element, on these tensors fits the
/// device: it and each tensor below 2^31 elements (32-bit offsets), each tensor within one
/// binding, every invocation below the device's loop turns with at most max_groups workgroups.
inline bool index_copy_fits(uint64_t elements, uint64_t turns_per_element,
                            std::initializer_list<ir::TensorMeta> tensors,
                            const DeviceLimits& limits) {
  const uint64_t invocations = kIndexCopyWorkgroup * limits.max_groups;
  const uint64_t per_invocation = (elements + invocations - 1) / invocations;
  constexpr uint64_t kMaxElements = uint64_t{1} << 31;
  return elements < kMaxElements && per_invocation * turns_per_element < limits.max_loop_turns &&
         std::all_of(tensors.begin(), tensors.end(), [&](const ir::TensorMeta& t) {
           const auto n = static_cast<uint64_t>(t.shape.num_elements());
           return n < kMaxElements && n * dtype_size(t.dtype) <= limits.max_binding;
         });
}

/// The dispatches of the index-copy kernels and of the cumulative scan (cumulative_scan.h) recorded
/// in this process, by every shader device: how tests see that an op ran on the device's kernels,
/// not on the host.
inline std::atomic<uint64_t>& index_copy_dispatches() {
  static std::atomic<uint64_t> dispatches{0};
  return dispatches;
}

/// The kernels' 32-bit words of a list of dims or strides, padded to kIndexCopyMaxRank.
inline void put_words(std::vector<uint32_t>& words, const std::vector<int64_t>& values) {
  for (std::size_t d = 0; d < kIndexCopyMaxRank; ++d)
    words.push_back(d < values.size() ? static_cast<uint32_t>(values[d]) : 0u);
}

/// A Copy of elements of dtype over walked: from (from_offset, from_strides) to (to_offset,
/// to_strides); with index_dtype, from also adds index[at] * index_stride, at the dot product of
/// the position with index_strides.
struct CopyWalk {
  Shape walked;
  int64_t from_offset = 0;
  std::vector<int64_t> from_strides;
  int64_t to_offset = 0;
  std::vector<int64_t> to_strides;
  std::optional<DType> index_dtype;
  int64_t index_stride = 0;
  std::vector<int64_t> index_strides;

  IndexCopyDispatch dispatch(DType dtype) const {
    IndexCopyDispatch d;
    d.key = {IndexCopyKind::Copy, static_cast<uint32_t>(dtype_size(dtype)),
             index_dtype ? static_cast<uint32_t>(dtype_size(*index_dtype)) : 0u, Combine::Assign};
    d.elements = static_cast<uint64_t>(walked.num_elements());
    d.words = {static_cast<uint32_t>(d.elements),
               static_cast<uint32_t>(walked.rank()),
               static_cast<uint32_t>(from_offset),
               static_cast<uint32_t>(to_offset),
               static_cast<uint32_t>(index_stride),
               0u,
               0u,
               0u};
    put_words(d.words, walked.dims());
    put_words(d.words, from_strides);
    put_words(d.words, to_strides);
    put_words(d.words, index_strides);
    return d;
  }
};

/// A contiguous copy of shape.
inline CopyWalk contiguous_copy(const Shape& shape) {
  const std::vector<int64_t> strides = shape.contiguous_strides();
  return {shape, 0, strides, 0, strides, std::nullopt, 0, {}};
}

/// Cat: part (contiguous) into out's window starting at position along dim.
inline CopyWalk cat_copy(const Shape& part, const Shape& out, int64_t dim, int64_t position) {
  const std::vector<int64_t> strides = out.contiguous_strides();
  return {part,
          0,
          part.contiguous_strides(),
          position * strides[static_cast<std::size_t>(dim)],
          strides,
          std::nullopt,
          0,
          {}};
}

/// SliceAssign: values (contiguous) into x's (contiguous) slice of ranges.
inline CopyWalk slice_assign_copy(const Shape& values, const Shape& x,
                                  const std::vector<ir::SliceRange>& ranges) {
  std::vector<int64_t> strides = x.contiguous_strides();
  int64_t offset = 0;
  for (std::size_t d = 0; d < strides.size(); ++d) {
    offset += ranges[d].start * strides[d];
    strides[d] *= ranges[d].step;
  }
  return {values, 0, values.contiguous_strides(), offset, strides, std::nullopt, 0, {}};
}

/// Select (index along dim: indices[c[dim]]) or Gather (index: indices[c], of out's shape) of x
/// into out (contiguous).
inline CopyWalk indexed_copy(const Shape& x, const Shape& out, int64_t dim, DType index_dtype,
                             bool select) {
  const auto axis = static_cast<std::size_t>(dim);
  std::vector<int64_t> from = x.contiguous_strides();
  const int64_t along = from[axis];
  from[axis] = 0;
  std::vector<int64_t> at = out.contiguous_strides();
  if (select) {
    at.assign(out.rank(), 0);
    at[axis] = 1;
  }
  return {out, 0, from, 0, out.contiguous_strides(), index_dtype, along, at};
}

/// Update (select_assign: select, indices rank 1; scatter: indices of values' shape) of x
/// (contiguous, already copied into out) by values at indices along dim, combined by combine.
inline IndexCopyDispatch update_dispatch(const Shape& x, const Shape& values, int64_t dim,
                                         DType dtype, DType index_dtype, Combine combine,
                                         bool select) {
  const auto axis = static_cast<std::size_t>(dim);
  IndexCopyDispatch d;
  d.key = {IndexCopyKind::Update, static_cast<uint32_t>(dtype_size(dtype)),
           static_cast<uint32_t>(dtype_size(index_dtype)), combine};
  d.elements = static_cast<uint64_t>(values.num_elements());
  d.words = {static_cast<uint32_t>(d.elements),
             static_cast<uint32_t>(values.rank()),
             static_cast<uint32_t>(dim),
             static_cast<uint32_t>(values[axis]),
             0u,
             0u,
             0u,
             0u};
  std::vector<int64_t> index_strides = values.contiguous_strides();
  if (select) {
    index_strides.assign(values.rank(), 0);
    index_strides[axis] = 1;
  }
  put_words(d.words, values.dims());
  put_words(d.words, x.contiguous_strides());
  put_words(d.words, index_strides);
  put_words(d.words, values.contiguous_strides());
  return d;
}

/// The loop turns of an Update in all: each values element reads the index lane along dim once
/// (the positions before its own, to find whether it is the first, then the rest).
inline uint64_t update_turns(const Shape& values, int64_t dim) {
  return static_cast<uint64_t>(values.num_elements()) *
         static_cast<uint64_t>(values[static_cast<std::size_t>(dim)]);
}

/// The Combine of update on dtype; nullopt where the kernel has no such arithmetic (Add on a
/// dtype other than f32, i32, u32: the host).
inline std::optional<Combine> combine_of(ir::IndexUpdate update, DType dtype) {
  if (update == ir::IndexUpdate::Assign) return Combine::Assign;
  if (dtype == DType::F32) return Combine::AddF32;
  if (dtype == DType::I32 || dtype == DType::U32) return Combine::AddInt32;
  return std::nullopt;
}

/// CheckIndices over n index elements of index_dtype against size.
inline IndexCopyDispatch check_dispatch(uint64_t n, int64_t size, DType index_dtype) {
  IndexCopyDispatch d;
  d.key = {IndexCopyKind::CheckIndices, 4, static_cast<uint32_t>(dtype_size(index_dtype)),
           Combine::Assign};
  d.elements = n;
  d.words = {static_cast<uint32_t>(n), static_cast<uint32_t>(size)};
  return d;
}

/// Arange into an integer dtype the kernel writes (start, end and step within 32-bit integers),
/// or nullopt.
inline std::optional<IndexCopyDispatch> arange_dispatch(const ir::Arange& arange, uint64_t n) {
  const auto fits = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  if (!moves_dtype(arange.dtype) || !fits(arange.start) || !fits(arange.end) || !fits(arange.step))
    return std::nullopt;
  IndexCopyDispatch d;
  d.key = {IndexCopyKind::Arange, static_cast<uint32_t>(dtype_size(arange.dtype)), 0,
           Combine::Assign};
  d.elements = n;
  d.words = {static_cast<uint32_t>(n), static_cast<uint32_t>(arange.start),
             static_cast<uint32_t>(arange.step)};
  return d;
}

/// Fill of n elements of full's dtype (moves_dtype) with its value, ndarray's conversion of it.
inline IndexCopyDispatch fill_dispatch(const ir::Full& full, uint64_t n) {
  IndexCopyDispatch d;
  d.key = {IndexCopyKind::Fill, static_cast<uint32_t>(dtype_size(full.dtype)), 0, Combine::Assign};
  d.elements = n;
  uint32_t bits[2] = {0, 0};
  visit_dtype(full.dtype, [&]<typename T>() {
    const T value = ndarray::scalar_as<T>(full.value);
    static_assert(sizeof(T) <= sizeof(bits));
    std::memcpy(bits, &value, sizeof(T));
  });
  d.words = {static_cast<uint32_t>(n), bits[0], bits[1]};
  return d;
}

}  // namespace ember::shader
