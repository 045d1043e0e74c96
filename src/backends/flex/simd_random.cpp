// Highway kernel of simd.h's random: f32 draws of ir/random.h's stream a vector of elements at a
// time, bit for bit ir::random_element<float> (tests/flex/random_test.cpp). It exists because the
// scalar path runs one Philox4x32-10 block per element through 64-bit multiplies (22-27 ns an
// element on a Zen VM, 100 ns for a normal), and dropout's masks drawn that way took about a
// fifth of a small transformer's CPU training step. Here each u32 lane carries one element's
// counter through the ten rounds, and the distributions' formulas are ir::random_value's on the
// lanes: the normal's is random_formulas-inl.h's, evaluated on HwyMath's vectors.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_random.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numbers>

#include "backends/flex/simd.h"
#include "backends/flex/simd_math-inl.h"
#include "ir/random.h"
#include "ir/random_polynomials.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The normal's formula compiled for this target's instructions, beside formulas-inl.h's.
namespace formula {
#include "ir/random_formulas-inl.h"
}  // namespace formula

using Du = hn::ScalableTag<uint32_t>;
using Di = hn::RebindToSigned<Du>;
using Df = hn::RebindToFloat<Du>;
using Vu = hn::Vec<Du>;
using Vf = hn::Vec<Df>;

/// A Philox block per lane: lane j of word k is word k of element j's block.
struct Words {
  Vu w0, w1, w2, w3;
};

/// Random123's mulhilo32 lane by lane: the high and low halves of the 64-bit products m * a.
/// Highway multiplies u32 lanes into u64 for the even lanes alone (MulEven): the odd lanes take a
/// second MulEven of a shifted down by one lane, and the halves are blended back into place.
HWY_INLINE void MulHiLo(uint32_t m, Vu a, Vu& hi, Vu& lo) {
  const Du du;
#if HWY_TARGET == HWY_SCALAR
  // A single lane, which multiplies whole.
  const uint64_t product = uint64_t{m} * hn::GetLane(a);
  hi = hn::Set(du, static_cast<uint32_t>(product >> 32));
  lo = hn::Set(du, static_cast<uint32_t>(product));
#else
  const hn::Repartition<uint64_t, Du> d64;
  const Vu factor = hn::Set(du, m);
  // Lane 2j of even holds the low half of a[2j] m, lane 2j + 1 its high half; odd likewise for
  // a[2j + 1] m.
  const Vu even = hn::BitCast(du, hn::MulEven(a, factor));
  const Vu odd = hn::BitCast(
      du, hn::MulEven(hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(d64, a))), factor));
  hi = hn::OddEven(odd, hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(d64, even))));
  lo = hn::OddEven(hn::BitCast(du, hn::ShiftLeft<32>(hn::BitCast(d64, odd))), even);
#endif
}

/// Vectors of elements drawn at once. Philox's rounds are a chain of dependent multiplies,
/// shifts and blends: a vector at a time waits on their latencies, independent ones in flight fill
/// them.
constexpr int64_t kInFlight = 2;
using Group = std::array<Words, kInFlight>;

/// One Philox round of every block of c under the round's key (k0, k1): Random123's
/// _philox4x32round, whose constants it takes.
HWY_INLINE void Round(Group& c, uint32_t k0, uint32_t k1) {
  const Du du;
  // Unrolled, so that the blocks stay in registers and their rounds interleave.
  HWY_UNROLL(kInFlight)
  for (Words& w : c) {
    Vu hi0, lo0, hi1, lo1;
    MulHiLo(PHILOX_M4x32_0, w.w0, hi0, lo0);
    MulHiLo(PHILOX_M4x32_1, w.w2, hi1, lo1);
    w = {hn::Xor(hn::Xor(hi1, w.w1), hn::Set(du, k0)), lo1,
         hn::Xor(hn::Xor(hi0, w.w3), hn::Set(du, k1)), lo0};
  }
}

/// The blocks of the elements from first on, one per lane, kInFlight vectors of them
/// (ir::random_words): Philox4x32-10 of the counters {low32(i), high32(i), 0, 0} under the key
/// {low32(key), high32(key)}, the key bumped between rounds as Random123's _philox4x32bumpkey.
HWY_INLINE Group RandomWords(uint64_t key, uint64_t first) {
  const Du du;
  const auto lanes = hn::Lanes(du);
  Group c;
  for (std::size_t j = 0; j < c.size(); ++j) {
    const uint64_t at = first + j * lanes;
    const Vu base = hn::Set(du, static_cast<uint32_t>(at));
    const Vu low = hn::Add(base, hn::Iota(du, 0));
    // A lane whose low word wrapped past 2^32 carries into the high word (a true mask lane is all
    // ones, -1).
    const Vu high =
        hn::Sub(hn::Set(du, static_cast<uint32_t>(at >> 32)), hn::VecFromMask(du, low < base));
    c[j] = {low, high, hn::Zero(du), hn::Zero(du)};
  }
  auto k0 = static_cast<uint32_t>(key);
  auto k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    Round(c, k0, k1);
    k0 += PHILOX_W32_0;
    k1 += PHILOX_W32_1;
  }
  return c;
}

/// The top 24 bits of the lanes of hi, as integers k: ir::uniform01<float> is k 2^-24.
HWY_INLINE hn::Vec<Di> Top24(Vu hi) {
  return hn::BitCast(Di(), hn::ShiftRight<8>(hi));
}

/// ir::uniform01<float> of the lanes of hi, exact.
HWY_INLINE Vf Uniform01(Vu hi) {
  return hn::Mul(hn::ConvertTo(Df(), Top24(hi)), hn::Set(Df(), 0x1p-24f));
}

/// out[i] = value(Words)'s lane of element first + i, i < n, a group of kInFlight vectors at a
/// time; the last, partial group through a buffer.
template <class Value>
HWY_INLINE void Draw(uint64_t key, uint64_t first, float* out, int64_t n, const Value& value) {
  const Df df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto store = [&](uint64_t at, float* to) HWY_ATTR {
    const Group words = RandomWords(key, at);
    for (int64_t j = 0; j < kInFlight; ++j)
      hn::StoreU(value(words[static_cast<std::size_t>(j)]), df, to + j * lanes);
  };
  int64_t i = 0;
  for (; i + kInFlight * lanes <= n; i += kInFlight * lanes)
    store(first + static_cast<uint64_t>(i), out + i);
  if (i == n) return;
  HWY_ALIGN float rest[kInFlight * HWY_MAX_BYTES / sizeof(float)];
  store(first + static_cast<uint64_t>(i), rest);
  std::copy(rest, rest + (n - i), out + i);
}

/// ir::standard_normal (f32) of lanes: the radius in (0, 1], the angle in [0, 1): the formula of
/// random_formulas-inl.h on vectors. Its inputs are normal floats, which HwyMath's frexp computes
/// (its valid flags are not needed). Out of line with everything inlined into it (flatten): GCC
/// would not inline the formula's templates into the draw loop, and their calls took the vectors
/// by reference, through memory (a normal draw 13% slower than the hand-written vectors; one call
/// a vector, as here, 4%: 2.77 against 2.67 ns an element, one thread of the Zen 3 VM).
HWY_FLATTEN HWY_NOINLINE Vf StandardNormal(Vf radius, Vf angle) {
  return formula::standard_normal_f32(HwyMath<Df>(Df()), radius, angle);
}

/// Draws fma(scale, x(words), offset) with ir::affine_draw's parameters of d (the uniform's x is
/// u, the normal's z). Whether it drew: not where MulAdd is a product and a sum, rounded twice.
template <class X>
HWY_INLINE bool DrawAffine(const Distribution& d, uint64_t key, uint64_t first, float* out,
                           int64_t n, const X& x) {
  if constexpr (!HWY_NATIVE_FMA) {
    return false;
  } else {
    const Df df;
    const ir::AffineDraw<float> affine = ir::affine_draw<float>(d);
    const Vf scale = hn::Set(df, affine.scale);
    const Vf offset = hn::Set(df, affine.offset);
    Draw(key, first, out, n,
         [&](const Words& w) HWY_ATTR { return hn::MulAdd(scale, x(w), offset); });
    return true;
  }
}

/// Draws Bernoulli(p): 1 where the top 24 bits of word 0 are below ir::bernoulli_threshold_f32(p).
HWY_INLINE void DrawBernoulli(double p, uint64_t key, uint64_t first, float* out, int64_t n) {
  const Df df;
  const auto threshold = hn::Set(Di(), static_cast<int32_t>(ir::bernoulli_threshold_f32(p)));
  const Vf one = hn::Set(df, 1.0f);
  Draw(key, first, out, n, [&](const Words& w) HWY_ATTR {
    return hn::IfThenElseZero(hn::RebindMask(df, Top24(w.w0) < threshold), one);
  });
}

/// ir::random_value<float>'s formulas on vectors. Whether it drew d (not the uniform and the
/// normal where there is no fused multiply-add).
bool DrawOnVectors(const Distribution& d, uint64_t key, uint64_t first, float* out, int64_t n) {
  switch (d.kind) {
    case Distribution::Kind::Default:
      Draw(key, first, out, n, [](const Words& w) HWY_ATTR { return Uniform01(w.w0); });
      return true;
    case Distribution::Kind::Uniform:
      return DrawAffine(d, key, first, out, n,
                        [](const Words& w) HWY_ATTR { return Uniform01(w.w0); });
    case Distribution::Kind::Normal:
      // The radius's 1 - u is exact and in (0, 1]; the angle takes words 2 and 3.
      return DrawAffine(d, key, first, out, n, [](const Words& w) HWY_ATTR {
        return StandardNormal(hn::Sub(hn::Set(Df(), 1.0f), Uniform01(w.w0)), Uniform01(w.w2));
      });
    case Distribution::Kind::Bernoulli:
      DrawBernoulli(d.a, key, first, out, n);
      return true;
  }
  return false;
}

void RandomF32(const Distribution& d, uint64_t key, uint64_t first, float* out, int64_t n) {
  if (DrawOnVectors(d, key, first, out, n)) return;
  for (int64_t i = 0; i < n; ++i)
    out[i] = ir::random_element<float>(d, key, first + static_cast<uint64_t>(i));
}

void StandardNormalF32(const float* radius, const float* angle, float* z, int64_t n) {
  int64_t i = 0;
  if constexpr (HWY_NATIVE_FMA) {
    const Df df;
    const auto lanes = static_cast<int64_t>(hn::Lanes(df));
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(StandardNormal(hn::LoadU(df, radius + i), hn::LoadU(df, angle + i)), df, z + i);
  }
  for (; i < n; ++i)
    z[i] = ir::standard_normal(radius[i], angle[i]);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(RandomF32);
HWY_EXPORT(StandardNormalF32);

void random(const Distribution& d, uint64_t key, uint64_t first, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(RandomF32)(d, key, first, out, n);
}
void standard_normal(const float* radius, const float* angle, float* z, int64_t n) {
  HWY_DYNAMIC_DISPATCH(StandardNormalF32)(radius, angle, z, n);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
