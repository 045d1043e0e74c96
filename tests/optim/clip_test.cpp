// Gradient clipping against torch.nn.utils.clip_grad_norm_ (golden.json) and by hand.
#include <cmath>
#include <limits>
#include <string>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

double norm_type_of(const json& c) {
  const json& type = c.at("norm_type");
  return type.is_string() ? kInfinityNorm : type.get<double>();
}

TEST(ClipGradNorm, MatchesTorchClipGradNorm) {
  for (const json& c : golden().at("clip_grad_norm")) {
    SCOPED_TRACE("norm_type " + c.at("norm_type").dump() + ", max_norm " + c.at("max_norm").dump());
    GradientsParams grads;
    grads.insert("a", tensor_of(c.at("grads").at("a")));
    grads.insert("b", tensor_of(c.at("grads").at("b")));
    const double total = clip_grad_norm(grads, c.at("max_norm"), norm_type_of(c));
    EXPECT_NEAR(total, c.at("total").get<double>(), 1e-12);
    expect_near(*grads.get("a"), c.at("clipped").at("a"));
    expect_near(*grads.get("b"), c.at("clipped").at("b"));
  }
}

TEST(ClipGradNorm, ByHandOnAThreeFourFiveTriangle) {
  GradientsParams grads;
  grads.insert("a", f64({3.0}, {1}));
  grads.insert("b", f64({-4.0}, {1}));
  EXPECT_DOUBLE_EQ(clip_grad_norm(grads, 1.0), 5.0);
  // Scaled by 1 / (5 + 1e-6).
  EXPECT_DOUBLE_EQ(values<double>(*grads.get("a"))[0], 3.0 / (5.0 + 1e-6));
  EXPECT_DOUBLE_EQ(values<double>(*grads.get("b"))[0], -4.0 / (5.0 + 1e-6));
  EXPECT_EQ(clip_grad_norm(grads, 1.0, kInfinityNorm), 4.0 / (5.0 + 1e-6));
}

TEST(ClipGradNorm, NoGradientsGiveZero) {
  GradientsParams none;
  EXPECT_EQ(clip_grad_norm(none, 1.0), 0.0);
}

TEST(ClipGradNorm, RejectsBadArguments) {
  GradientsParams grads;
  grads.insert("a", f64({3.0}, {1}));
  EXPECT_INVALID(clip_grad_norm(grads, -1.0), "[clip_grad_norm] max_norm -1 must be >= 0");
  EXPECT_INVALID(clip_grad_norm(grads, std::nan("")), "[clip_grad_norm] max_norm nan");
  EXPECT_INVALID(clip_grad_norm(grads, 1.0, 0.0), "[clip_grad_norm] norm_type 0 must be > 0");
  EXPECT_INVALID(clip_grad_norm(grads, 1.0, -2.0), "[clip_grad_norm] norm_type -2");
  EXPECT_EQ(values<double>(*grads.get("a")), std::vector<double>{3.0});
}

TEST(ClipGradValue, ClampsEveryElement) {
  GradientsParams grads;
  grads.insert("a", f64({-3.0, 0.5, 2.0}, {3}));
  grads.insert("b", f64({-0.25, 1.5}, {2}));
  clip_grad_value(grads, 1.0);
  EXPECT_EQ(values<double>(*grads.get("a")), (std::vector<double>{-1.0, 0.5, 1.0}));
  EXPECT_EQ(values<double>(*grads.get("b")), (std::vector<double>{-0.25, 1.0}));
  EXPECT_INVALID(clip_grad_value(grads, -1.0), "[clip_grad_value] value -1 must be >= 0");
}

}  // namespace
}  // namespace ember::optim::test
