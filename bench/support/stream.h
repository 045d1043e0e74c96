// A STREAM-like measure of the machine's memory bandwidth (McCalpin's copy and triad kernels),
// multithreaded, the ceiling the benchmarks compare elementwise work with.
#pragma once

#include <cstdint>
#include <memory>

namespace ember::bench {

/// Three float arrays of n elements split in one contiguous slice per thread; each slice is
/// first touched by the thread that later works on it.
class StreamArrays {
 public:
  /// InvalidArgument "[stream] ..." unless n >= threads >= 1.
  StreamArrays(int64_t n, int threads);

  /// b = a, with std::copy (the C library's fastest copy).
  void copy();
  /// a = b + scalar * c.
  void triad(float scalar);
  /// The bytes one call moves as STREAM counts them (reads plus writes, no write-allocate).
  int64_t copy_bytes() const { return 2 * n_ * static_cast<int64_t>(sizeof(float)); }
  int64_t triad_bytes() const { return 3 * n_ * static_cast<int64_t>(sizeof(float)); }
  /// The sum of a and b at i: reading it makes the last call's work observable.
  float sample(int64_t i) const { return a_[i] + b_[i]; }

 private:
  /// Calls slice(begin, end) for each thread's slice, on that thread (the caller runs the first).
  template <typename F>
  void for_each_slice(F slice) const;

  int64_t n_;
  int threads_;
  std::unique_ptr<float[]> a_, b_, c_;
};

}  // namespace ember::bench
