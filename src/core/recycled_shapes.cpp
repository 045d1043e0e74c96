#include "core/recycled_shapes.h"

#include <cstddef>
#include <utility>

#include "core/spares.h"
#include "core/thread_instance.h"

namespace ember::detail {
namespace {

/// Shapes kept per thread. An op's tensors die before the next op's are made, so a few suffice:
/// each queued binary op gives back about four (its tensor's, its fusion record's, its flex
/// buffer's, its inputs' records').
constexpr std::size_t kKept = 16;

struct SpareShapes {
  Spares<Shape> shapes{kKept};
};

}  // namespace

Shape recycled_copy(const Shape& shape) {
  SpareShapes* spare = thread_instance<SpareShapes>();
  return spare != nullptr ? spare->shapes.copy(shape) : shape;
}

void recycle(Shape&& shape) noexcept {
  if (SpareShapes* spare = thread_instance<SpareShapes>()) spare->shapes.keep(std::move(shape));
}

}  // namespace ember::detail
