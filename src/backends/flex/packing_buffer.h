// The memory ember's own GEMM (packed_gemm.h) packs its operands into: one buffer kept between
// products, so that a steady loop of products allocates nothing (nor faults in fresh pages) to
// pack, and released by memory_cleanup.
#pragma once

#include <hwy/aligned_allocator.h>

#include <cstdint>

namespace ember::flex {

/// A packing buffer for one product, 64-byte aligned. It is the kept buffer when that one is free
/// and large enough; else a new one (the kept one freed first when free: both at once may not
/// fit). On destruction it goes back to be kept, unless a larger one is kept meanwhile.
class PackingBuffer {
 public:
  /// ExecutionError "[matmul] ..." when the memory cannot be had.
  explicit PackingBuffer(int64_t floats);
  ~PackingBuffer();
  PackingBuffer(const PackingBuffer&) = delete;
  PackingBuffer& operator=(const PackingBuffer&) = delete;

  float* data() const { return data_.get(); }

 private:
  hwy::AlignedFreeUniquePtr<float[]> data_;
  int64_t floats_;
};

/// Frees the kept packing buffer (one in use is kept again when its product ends).
void release_packing_buffer();

/// The bytes the kept packing buffer holds: 0 when released, never made, or in use.
int64_t kept_packing_buffer_bytes();

}  // namespace ember::flex
