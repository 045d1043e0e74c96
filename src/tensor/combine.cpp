// Joining and cutting tensors: cat is an ir op; stack is unsqueeze + cat; split and chunk are
// narrow (Slice) per piece.
#include <algorithm>

#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/promote.h"

namespace ember::ops {
namespace {

using tensor::fail;

/// x cut along (normalized) dim into pieces of piece_size; the last may be smaller.
Handles pieces(const TensorHandle& x, int64_t dim, int64_t piece_size) {
  const int64_t size = x.shape()[static_cast<std::size_t>(dim)];
  Handles out;
  for (int64_t start = 0; start < size; start += std::min(piece_size, size - start)) {
    out.push_back(narrow(x, dim, start, std::min(piece_size, size - start)));
  }
  return out;
}

}  // namespace

TensorHandle cat(const Handles& xs, int64_t dim) {
  if (xs.empty()) fail("cat", "needs at least one tensor");
  const int64_t d = tensor::normalize_dim(dim, tensor::shape_of(xs.front(), "cat").rank(), "cat");
  const Handles promoted = tensor::promote(xs, "cat");
  return tensor::run(ir::Cat{d}, promoted).front();
}

TensorHandle stack(const Handles& xs, int64_t dim) {
  if (xs.empty()) fail("stack", "needs at least one tensor");
  const Shape& shape = tensor::shape_of(xs.front(), "stack");
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Shape& other = tensor::shape_of(xs[i], "stack");
    if (other != shape)
      fail("stack", "tensor ", i, " has shape ", other, " but tensor 0 has ", shape);
  }
  const int64_t d = tensor::normalize_insert_dim(dim, shape.rank(), "stack");
  Handles expanded;
  expanded.reserve(xs.size());
  for (const TensorHandle& x : xs)
    expanded.push_back(unsqueeze_dim(x, d));
  return cat(expanded, d);
}

Handles split(const TensorHandle& x, int64_t split_size, int64_t dim) {
  const int64_t d = tensor::normalize_dim(dim, tensor::shape_of(x, "split").rank(), "split");
  if (split_size <= 0) fail("split", "split_size ", split_size, " must be positive");
  Handles out = pieces(x, d, split_size);
  if (out.empty()) out.push_back(x);  // an empty dim splits into one empty piece, as in PyTorch
  return out;
}

Handles chunk(const TensorHandle& x, int64_t chunks, int64_t dim) {
  const int64_t d = tensor::normalize_dim(dim, tensor::shape_of(x, "chunk").rank(), "chunk");
  if (chunks <= 0) fail("chunk", "chunks ", chunks, " must be positive");
  const int64_t size = x.shape()[static_cast<std::size_t>(d)];
  // Pieces of ceil(size / chunks), as torch.chunk; an empty dim gives one empty piece.
  return split(x, std::max<int64_t>(1, size / chunks + (size % chunks != 0 ? 1 : 0)), d);
}

}  // namespace ember::ops
