// Convolution cases, both directions: with and without bias, groups, stride + padding +
// dilation, 1 to 3 spatial dims. Chosen so the rule's special paths run: a forward output size
// that floors away inputs (the input gradient needs output_padding), and a transposed
// convolution with output_padding >= stride (its input gradient is cropped). Shapes are tiny:
// the finite differences run the forward twice per input element.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

/// conv (or conv_transpose, as g says) of x and weight, plus a bias when with_bias.
GradCase conv_case(const std::string& name, const ir::ConvGeometry& g, const Shape& x,
                   const Shape& weight, bool with_bias) {
  const int64_t out_channels = g.transposed ? weight[1] * g.groups : weight[0];
  std::vector<TensorData> inputs{reals(name + "/x", x), reals(name + "/weight", weight)};
  if (with_bias) inputs.push_back(reals(name + "/bias", Shape{out_channels}));
  return op_case(name, ir::Conv{g}, std::move(inputs));
}

}  // namespace

std::vector<GradCase> conv_grad_cases() {
  return {
      conv_case("conv1d/bias", {{1}, {0}, {1}, {0}}, {2, 2, 5}, {3, 2, 2}, true),
      // H: (5 + 2 - 2) / 2 leaves a remainder of 1: the input gradient's transposed convolution
      // needs output_padding 1 to come back to 5 rows.
      conv_case("conv2d/stride_padding_dilation", {{2, 1}, {1, 1}, {1, 2}, {0, 0}}, {1, 2, 5, 4},
                {2, 2, 2, 2}, false),
      conv_case("conv2d/groups", {{1, 1}, {0, 0}, {1, 1}, {0, 0}, 2}, {1, 4, 3, 3}, {4, 2, 2, 2},
                true),
      // H: floor((3 - 2) / 2) + 1 = 1 output; the last input row reaches none (zero gradient).
      conv_case("conv3d/bias", {{1, 2, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}}, {1, 1, 3, 3, 2},
                {2, 1, 2, 2, 1}, true),
      conv_case("conv_transpose1d/bias", {{2}, {1}, {1}, {1}, 1, true}, {1, 2, 3}, {2, 3, 3}, true),
      // output_padding 1 >= stride 1 (allowed: < dilation 2).
      conv_case("conv_transpose1d/output_padding_past_stride", {{1}, {0}, {2}, {1}, 1, true},
                {1, 1, 3}, {1, 2, 2}, false),
      conv_case("conv_transpose2d/groups", {{2, 1}, {0, 1}, {1, 1}, {1, 0}, 2, true}, {1, 2, 2, 3},
                {2, 2, 2, 2}, false),
      conv_case("conv_transpose3d/bias", {{2, 1, 1}, {0, 0, 1}, {1, 1, 1}, {0, 0, 0}, 1, true},
                {1, 1, 2, 2, 2}, {1, 2, 2, 1, 2}, true),
  };
}

}  // namespace ember::test
