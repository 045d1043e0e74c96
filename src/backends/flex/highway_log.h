// The constants of Highway's f32 Log (hwy/contrib/math/math-inl.h, Highway 1.0, after musl's
// log: x = 2^e y with y in [sqrt(2)/2, sqrt(2)), log y from z = (y - 1) / (y + 1) and a
// polynomial in z^2, e ln 2 added in two parts) and the range where flex's loops trust it
// (simd_elementwise.cpp). The fused-program compiler (jit_program.cpp) reproduces Log operation
// for operation from these, so both give the same bits; tests/flex/jit_program_test.cpp checks
// it against Highway's own.
#pragma once

#include <cstdint>
#include <limits>

namespace ember::flex::highway_log {

/// flex's loops take log from Highway for x in [kValidMin, kValidMax] (normal positive floats);
/// they call std::log for zeros, negatives, subnormals, infinity and NaN. Inside the range,
/// Highway's scaling of subnormals changes nothing, so the compiled code leaves it out.
inline constexpr float kValidMin = std::numeric_limits<float>::min();
inline constexpr float kValidMax = std::numeric_limits<float>::max();

/// ln 2 = kLn2Hi + kLn2Lo.
inline constexpr float kLn2Hi = 0.69313812256f;
inline constexpr float kLn2Lo = 9.0580006145e-6f;
/// The bits of sqrt(2)/2, and what x's bits gain so that the exponent counts from there.
inline constexpr uint32_t kSqrtHalfBits = 0x3F3504F3u;
inline constexpr uint32_t kExponentShift = 0x3F800000u - kSqrtHalfBits;
inline constexpr uint32_t kMantissaMask = 0x7FFFFFu;
/// LogPoly's k0 ... k3, evaluated as (k2 z^4 + k0) z^2 + (k3 z^4 + k1) z^4.
inline constexpr float kPoly[4] = {0.66666662693f, 0.40000972152f, 0.28498786688f, 0.24279078841f};

}  // namespace ember::flex::highway_log
