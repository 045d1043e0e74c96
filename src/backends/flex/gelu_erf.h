// The constants of flex's f32 GELU in its erf form, x / 2 erfc(-x / sqrt 2), with erfc by
// Numerical Recipes' erfcc: erfc(w) = t exp(poly(t) - w^2), t = 1 / (1 + w / 2). Shared by the
// Highway loop (simd_activation.cpp) and the fused-program compiler (jit_program.cpp), which must
// give the same bits.
#pragma once

namespace ember::flex::gelu_erf {

/// erfc(kMaxW) is below the smallest float: larger w change nothing and could overflow w^2.
inline constexpr float kMaxW = 10.0f;
/// poly(t) by Horner's scheme: kPolyStart, then poly = poly t + c for each of kPoly in order.
inline constexpr float kPolyStart = 0.17087277f;
inline constexpr float kPoly[9] = {-0.82215223f, 1.48851587f,  -1.13520398f,
                                   0.27886807f,  -0.18628806f, 0.09678418f,
                                   0.37409196f,  1.00002368f,  -1.26551223f};

}  // namespace ember::flex::gelu_erf
