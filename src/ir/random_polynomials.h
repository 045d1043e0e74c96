// The f32 constants of the normal's formulas (ir/random_formulas-inl.h: log_f32, cos_turns_f32):
// polynomials fitted by tools/fit_random_polynomials.py (minimax relative error, coefficients
// rounded to f32), whose own relative errors are 0.10 x 2^-24 (log), 0.18 x 2^-24 (cos) and
// 0.12 x 2^-24 (sin), and ln 2 and 2 pi as sums of two floats.
#pragma once

#include <array>

namespace ember::ir::random_polynomials {

/// ln(1 + f) = f + f^2 (c0 + c1 f + ... + c8 f^8) for 1 + f in [sqrt(1/2), sqrt(2)).
inline constexpr std::array<float, 9> kLogCoefficients{
    -0x1.fffff8p-2f, 0x1.55555p-2f,   -0x1.000426p-2f, 0x1.99a3fap-3f, -0x1.54275cp-3f,
    0x1.22712p-3f,   -0x1.0f375ep-3f, 0x1.084b12p-3f,  -0x1.38368ep-4f};
/// cos(2 pi t) = 1 + x (c0 + c1 x + c2 x^2 + c3 x^3) for x = t^2, |t| <= 1/8.
inline constexpr std::array<float, 4> kCosTurnsCoefficients{-0x1.3bd3ccp+4f, 0x1.03c1dep+6f,
                                                            -0x1.55c5ep+6f, 0x1.d9d57ep+5f};
/// sin(2 pi t) = 2 pi t + t x (c0 + c1 x + c2 x^2) for x = t^2, |t| <= 1/8.
inline constexpr std::array<float, 3> kSinTurnsCoefficients{-0x1.4abbbep+5f, 0x1.466004p+6f,
                                                            -0x1.2dc84cp+6f};
// ln 2 and 2 pi as sums of two floats, to twice f32's precision.
inline constexpr float kLn2High = 0x1.62e43p-1f;
inline constexpr float kLn2Low = -0x1.05c61p-29f;
inline constexpr float kTwoPiHigh = 0x1.921fb6p+2f;
inline constexpr float kTwoPiLow = -0x1.777a5cp-23f;

}  // namespace ember::ir::random_polynomials
