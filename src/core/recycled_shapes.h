// Recycled shapes: the memory of dead tensors' shapes, which the thread's next output shapes
// (ir::infer's results) reuse. A fresh shape is a heap allocation and its release a free:
// together a visible part of an op on a tiny tensor.
#pragma once

#include "ember/shape.h"

namespace ember::detail {

/// A copy of shape, in the memory of a shape this thread recycled when there is one.
Shape recycled_copy(const Shape& shape);
/// Keeps shape's memory for this thread's next recycled_copy while there is room. Never
/// allocates (the room is reserved up front), so it may run in a destructor.
void recycle(Shape&& shape) noexcept;

}  // namespace ember::detail
