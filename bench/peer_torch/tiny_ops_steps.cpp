#include "peer_torch/tiny_ops_steps.h"

#include <torch/torch.h>

#include <functional>
#include <utility>

#include "ember/error.h"

namespace ember::bench {
namespace {

using Call = std::function<torch::Tensor()>;

/// bench/support/pattern.h's values, computed as PyTorch's Python peer does.
torch::Tensor pattern(const std::vector<int64_t>& shape, int64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  const torch::Tensor k = (torch::arange(n, torch::kInt64) * 7919 + 12345 * seed) % 65521;
  return (k.to(torch::kFloat32) / 32760.5 - 1.0).reshape(shape);
}

Call make_call(const std::string& op, const std::vector<int64_t>& shape, bool out_variant) {
  const torch::Tensor a = pattern(shape, 0), b = pattern(shape, 1);
  torch::Tensor out = torch::empty(shape);  // not const: the out= lambdas write into it
  if (op == "add")
    return out_variant ? Call([=]() mutable { return torch::add_out(out, a, b); })
                       : Call([=] { return torch::add(a, b); });
  if (op == "mul")
    return out_variant ? Call([=]() mutable { return torch::mul_out(out, a, b); })
                       : Call([=] { return torch::mul(a, b); });
  if (op == "exp")
    return out_variant ? Call([=]() mutable { return torch::exp_out(out, a); })
                       : Call([=] { return torch::exp(a); });
  throw InvalidArgument("[tiny_ops_libtorch] unknown op '" + op + "' (add, mul, exp)");
}

class TorchStep final : public TinyOpStep {
 public:
  explicit TorchStep(Call call) : call_(std::move(call)), last_(call_()) {}
  void run() override { last_ = call_(); }
  double checksum() const override { return last_.to(torch::kFloat64).abs().sum().item<double>(); }

 private:
  Call call_;
  torch::Tensor last_;
};

}  // namespace

std::unique_ptr<TinyOpStep> make_tiny_op_step(const std::string& op,
                                              const std::vector<int64_t>& shape, bool out_variant) {
  return std::make_unique<TorchStep>(make_call(op, shape, out_variant));
}

}  // namespace ember::bench
