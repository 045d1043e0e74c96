#include "support/stream.h"

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "ember/error.h"

namespace ember::bench {

StreamArrays::StreamArrays(int64_t n, int threads)
    : n_(n),
      threads_(threads),
      a_(std::make_unique_for_overwrite<float[]>(n)),
      b_(std::make_unique_for_overwrite<float[]>(n)),
      c_(std::make_unique_for_overwrite<float[]>(n)) {
  if (threads < 1 || n < threads)
    throw InvalidArgument("[stream] needs n >= threads >= 1, got n " + std::to_string(n) +
                          ", threads " + std::to_string(threads));
  for_each_slice([this](int64_t begin, int64_t end) {
    std::fill(a_.get() + begin, a_.get() + end, 1.0F);
    std::fill(b_.get() + begin, b_.get() + end, 2.0F);
    std::fill(c_.get() + begin, c_.get() + end, 0.5F);
  });
}

template <typename F>
void StreamArrays::for_each_slice(F slice) const {
  const auto bounds = [this](int t) { return n_ * t / threads_; };
  std::vector<std::jthread> workers;
  for (int t = 1; t < threads_; ++t)
    workers.emplace_back([&, t] { slice(bounds(t), bounds(t + 1)); });
  slice(bounds(0), bounds(1));
}  // the jthreads join here

void StreamArrays::copy() {
  for_each_slice([this](int64_t begin, int64_t end) {
    std::copy(a_.get() + begin, a_.get() + end, b_.get() + begin);
  });
}

void StreamArrays::triad(float scalar) {
  for_each_slice([this, scalar](int64_t begin, int64_t end) {
    const float* b = b_.get();
    const float* c = c_.get();
    float* a = a_.get();
    for (int64_t i = begin; i < end; ++i)
      a[i] = b[i] + scalar * c[i];
  });
}

}  // namespace ember::bench
