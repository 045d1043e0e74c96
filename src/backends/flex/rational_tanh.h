// The constants of flex's f32 tanh, the odd rational minimax of degrees 13/6 that Eigen, XLA and
// MLAS use: tanh(x) ~ x p(x^2) / q(x^2). Shared by the Highway loop (simd_elementwise.cpp) and
// the fused-program compiler (jit_program.cpp), which must give the same bits.
#pragma once

namespace ember::flex::rational_tanh {

/// The least float whose tanh rounds to 1: from |x| = kSaturates on, tanh is +-1 exactly.
inline constexpr float kSaturates = 9.01091385f;
/// Below |x| = kTiny tanh rounds to x itself, which also keeps denormals exact.
inline constexpr float kTiny = 4e-4f;

/// p(y) = ((kP[0] y + kP[1]) + (kP[2] y + kP[3]) y^2) + ((kP[4] y + kP[5]) + kP[6] y^2) y^4,
/// evaluated by Estrin's scheme in that grouping.
inline constexpr float kP[7] = {
    6.37261928875436e-04f, 4.89352455891786e-03f,  5.12229709037114e-08f, 1.48572235717979e-05f,
    2.00018790482477e-13f, -8.60467152213735e-11f, -2.76076847742355e-16f};
/// q(y) = (kQ[0] y + kQ[1]) + (kQ[2] y + kQ[3]) y^2.
inline constexpr float kQ[4] = {2.26843463243900e-03f, 4.89352518554385e-03f, 1.19825839466702e-06f,
                                1.18534705686654e-04f};

}  // namespace ember::flex::rational_tanh
