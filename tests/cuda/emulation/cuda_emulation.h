// The CUDA C that ember's kernels use, emulated on the CPU, so that a generated kernel compiled by
// the host's C++ compiler runs where there is no GPU (tests/cuda/attention_emulation_test.cpp):
// one OS thread per CUDA thread of a block, a std::barrier for __syncthreads, and the warp
// collectives (__shfl_xor_sync, mma.sync, ldmatrix) exchanging their operands through per-warp
// slots between two warp barriers, laid out as the PTX ISA specifies their fragments. Blocks run
// one after another; __shared__ arrays are statics (each block writes what it reads). The test
// replaces the kernels' inline-assembly helpers by the ember_emulated_* functions below.
#pragma once

#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "half_bits.h"

struct dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local dim3 threadIdx;
inline dim3 blockIdx;
inline dim3 blockDim;

#define __device__
#define __global__
#define __forceinline__ static inline
#define __launch_bounds__(...)
#define __shared__ static

namespace ember_emulation {

inline std::barrier<>* block_barrier = nullptr;

/// What a warp's lanes exchange in a collective.
struct Warp {
  std::unique_ptr<std::barrier<>> barrier;
  float values[32];
  unsigned a[32][4];
  unsigned b[32][2];
  const void* rows[32];
};
inline Warp warps[32];

inline int lane() {
  return static_cast<int>(threadIdx.x % 32);
}
inline Warp& warp() {
  return warps[threadIdx.x / 32];
}
inline void warp_wait() {
  warp().barrier->arrive_and_wait();
}

}  // namespace ember_emulation

inline void __syncthreads() {
  ember_emulation::block_barrier->arrive_and_wait();
}
inline float __uint_as_float(unsigned u) {
  return ember_emulation::float_of(u);
}
inline float __int_as_float(int u) {
  return ember_emulation::float_of(static_cast<uint32_t>(u));
}
inline unsigned __float_as_uint(float f) {
  return ember_emulation::bits_of(f);
}
/// double to float, rounded toward zero.
inline float __double2float_rz(double v) {
  float f = static_cast<float>(v);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return f;
}
using std::isfinite;
template <class T>
inline T min(T a, T b) {
  return a < b ? a : b;
}
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}
struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}

inline float __shfl_xor_sync(unsigned /*mask*/, float x, int lanes) {
  using namespace ember_emulation;
  warp().values[lane()] = x;
  warp_wait();
  const float result = warp().values[lane() ^ lanes];
  warp_wait();
  return result;
}

/// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}: c += A B for the warp's 16x16 A and 16x8 B,
/// thread (g, t) = (lane / 4, lane % 4) holding A's rows g, g + 8 at columns 2t, 2t + 1 (and + 8),
/// B's column g at rows 2t, 2t + 1 (and + 8), and C's rows g, g + 8 at columns 2t, 2t + 1.
inline void ember_emulated_mma(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1,
                               bool bf16) {
  using namespace ember_emulation;
  Warp& w = warp();
  for (int i = 0; i < 4; ++i)
    w.a[lane()][i] = a[i];
  w.b[lane()][0] = b0;
  w.b[lane()][1] = b1;
  warp_wait();
  float A[16][16];
  float B[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4;
    const int t = l % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = g + (i % 2) * 8;
      const int column = 2 * t + (i / 2) * 8;
      A[row][column] = half_to_float(static_cast<unsigned short>(w.a[l][i] & 0xffffu), bf16);
      A[row][column + 1] = half_to_float(static_cast<unsigned short>(w.a[l][i] >> 16), bf16);
    }
    for (int i = 0; i < 2; ++i) {
      const int k = 2 * t + i * 8;
      B[k][g] = half_to_float(static_cast<unsigned short>(w.b[l][i] & 0xffffu), bf16);
      B[k + 1][g] = half_to_float(static_cast<unsigned short>(w.b[l][i] >> 16), bf16);
    }
  }
  warp_wait();
  const int g = lane() / 4;
  const int t = lane() % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i / 2) * 8;
    const int column = 2 * t + i % 2;
    double sum = 0.0;
    for (int k = 0; k < 16; ++k)
      sum += static_cast<double>(A[row][k]) * B[k][column];
    c[i] += static_cast<float>(sum);
  }
}

/// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: lane l gives row l % 8 of matrix l / 8 and
/// receives, of each matrix i, elements 2t, 2t + 1 of row g (of column g when transposed).
inline void ember_emulated_ldmatrix(unsigned (&r)[4], const unsigned short* row, bool transposed) {
  using namespace ember_emulation;
  Warp& w = warp();
  w.rows[lane()] = row;
  warp_wait();
  const int g = lane() / 4;
  const int t = lane() % 4;
  for (int i = 0; i < 4; ++i) {
    const auto at = [&](int r, int column) {
      return static_cast<const unsigned short*>(w.rows[8 * i + r])[column];
    };
    const unsigned short lo = transposed ? at(2 * t, g) : at(g, 2 * t);
    const unsigned short hi = transposed ? at(2 * t + 1, g) : at(g, 2 * t + 1);
    r[i] = static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
  }
  warp_wait();
}

namespace ember_emulation {

template <class... Args>
void run_blocks(void (*kernel)(Args...), unsigned blocks, unsigned threads, Args... args) {
  blockDim = {threads, 1, 1};
  for (unsigned b = 0; b < blocks; ++b) {
    blockIdx = {b, 0, 0};
    std::barrier<> barrier(threads);
    block_barrier = &barrier;
    for (unsigned w = 0; w < threads / 32; ++w)
      warps[w].barrier = std::make_unique<std::barrier<>>(32);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([=] {
        threadIdx = {t, 0, 0};
        kernel(args...);
      });
    }
    for (std::thread& thread : pool)
      thread.join();
  }
}

template <class... Args, std::size_t... I>
void launch(void (*kernel)(Args...), unsigned blocks, unsigned threads, void* const* args,
            std::index_sequence<I...>) {
  run_blocks(kernel, blocks, threads, *static_cast<std::remove_reference_t<Args>*>(args[I])...);
}

}  // namespace ember_emulation

/// kernel over blocks of threads, its arguments as cuLaunchKernel takes them (a pointer to each).
template <class... Args>
void ember_emulated_launch(void (*kernel)(Args...), unsigned blocks, unsigned threads,
                           void* const* args) {
  ember_emulation::launch(kernel, blocks, threads, args, std::index_sequence_for<Args...>{});
}
