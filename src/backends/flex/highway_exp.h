// The constants of Highway's f32 Exp, and of its Expm1 and Tanh built on the same steps
// (hwy/contrib/math/math-inl.h, Highway 1.0: a range reduction by ln 2 in two parts, a degree-7
// polynomial by Estrin's scheme, the exponent loaded in two halves), and the range where flex's
// loops trust Exp (simd_elementwise.cpp). The fused-program compiler (jit_program.cpp) reproduces
// them operation for operation from these, so both give the same bits;
// tests/flex/jit_program_test.cpp checks it against Highway's own.
#pragma once

#include <limits>

namespace ember::flex::highway_exp {

/// Largest x whose exp flex's loops take from Highway: beyond, and for NaN and -inf, they call
/// std::exp (Highway's result overflows its exponent arithmetic past about 88.7).
inline constexpr float kValidMax = 88.0f;
inline constexpr float kValidMin = std::numeric_limits<float>::lowest();

inline constexpr float kOneOverLn2 = 1.442695040888963407359924681f;
/// kLn2Part0 + kLn2Part1 ~= -ln 2.
inline constexpr float kLn2Part0 = -0.693145751953125f;
inline constexpr float kLn2Part1 = -1.428606765330187045e-6f;
/// The polynomial's coefficients k0 ... k5: exp(r) ~ 1 + r + r^2 (k0 + k1 r + ... + k5 r^5).
inline constexpr float kPoly[6] = {+0.5f,
                                   +0.166666671633720397949219f,
                                   +0.0416664853692054748535156f,
                                   +0.00833336077630519866943359f,
                                   +0.00139304355252534151077271f,
                                   +0.000198527617612853646278381f};
/// Below this x the result is zero (Expm1's: -1).
inline constexpr float kLowerBound = -104.0f;
/// Expm1 takes the polynomial itself where |x| < kLn2Over2.
inline constexpr float kLn2Over2 = 0.346573590279972654708616f;

}  // namespace ember::flex::highway_exp
