// The constants in the definitions of ir::Activation, shared by every kernel and by the backward
// rules so that forward and backward agree. Values as PyTorch defines them.
#pragma once

namespace ember::ir {

/// Above beta * x > kSoftplusThreshold, softplus(x) is x (its derivative 1).
inline constexpr double kSoftplusThreshold = 20.0;
/// SELU's alpha and scale (Klambauer et al., 2017).
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
/// GELU's tanh approximation: x / 2 * (1 + tanh(sqrt(2 / pi) * (x + kGeluTanhCubic * x^3))).
inline constexpr double kGeluTanhCubic = 0.044715;
/// sqrt(2 / pi), GELU's tanh form's scale.
inline constexpr double kSqrtTwoOverPi = 0.79788456080286535587989211986876;

}  // namespace ember::ir
