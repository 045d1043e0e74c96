#include "fusion/lazy_buffer.h"

#include "fusion/stream.h"

namespace ember::fusion {

backend::BufferPtr LazyBuffer::resolve() {
  return stream_->resolve(*this);
}

}  // namespace ember::fusion
