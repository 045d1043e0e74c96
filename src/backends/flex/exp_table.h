// The constants of the f32 exponential that softmax, log_softmax and cross_entropy take of
// values at most 0 (simd_reduce.cpp's ExpNonPositive on vectors of 8 to 16 lanes): exp(x) =
// 2^(m / 8) exp(r), m = round(8 x / ln 2), |r| <= ln 2 / 16, with 2^(j / 8) from a table of 8
// (one lane permutation: vpermps), exp(r) - 1 = r (1 + c2 r + c3 r^2), and the result rounded
// once, as 2^(j/8) + 2^(j/8) (exp(r) - 1) in an fma, before its exponent gains m's floor(m / 8).
// Against Highway's degree-7 polynomial, 7 multiplications where that takes 11, and closer: over
// [-86.6, 0], at most 1.15 ulp from exp (mean 0.34) against 1.22 (0.35), in a simulation of the
// f32 operations.
#pragma once

namespace ember::flex::exp_table {

/// 2^(j / 8) for j = 0 ... 7, rounded to f32, twice: a 16-lane vector (AVX-512) loads 16 entries
/// and looks up indices below 8.
alignas(64) inline constexpr float kPowers[16] = {
    0x1p+0f,        0x1.172b84p+0f, 0x1.306fe0p+0f, 0x1.4bfdaep+0f, 0x1.6a09e6p+0f, 0x1.8ace54p+0f,
    0x1.ae89fap+0f, 0x1.d5818ep+0f, 0x1p+0f,        0x1.172b84p+0f, 0x1.306fe0p+0f, 0x1.4bfdaep+0f,
    0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};

inline constexpr float kEightOverLn2 = 11.54156032711170725887739744f;
/// kLn2Over8Part0 + kLn2Over8Part1 ~= -ln 2 / 8 (Highway's split of ln 2, divided by 8: exact).
inline constexpr float kLn2Over8Part0 = -0.693145751953125f / 8;
inline constexpr float kLn2Over8Part1 = -1.428606765330187045e-6f / 8;
/// exp(r) - 1 ~= r (1 + kC2 r + kC3 r^2) on |r| <= ln 2 / 16: a minimax fit of the relative
/// error (Lawson's iteration at Chebyshev nodes), its f32 neighbours searched for the smallest
/// largest error of the whole function.
inline constexpr float kC2 = 0x1.000868p-1f;
inline constexpr float kC3 = 0x1.55565ap-3f;
/// The smallest x taken: ln 2^-125 rounded up, so that m >= -1000 and every result's exponent is
/// normal (at least 2^-125 times a factor above 0.95), which adding m / 8 to its bits needs.
inline constexpr float kLowest = -86.64f;

}  // namespace ember::flex::exp_table
