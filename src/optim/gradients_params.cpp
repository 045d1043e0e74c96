#include "ember/optim/gradients_params.h"

#include <utility>

#include "checks.h"

namespace ember::optim {
namespace {

/// Finds each param's gradient (ParamBase::grad: none for a frozen param).
class GradientFinder : public nn::ModuleVisitor {
 public:
  GradientFinder(const Gradients& grads, GradientsParams& found) : grads_(grads), found_(found) {}
  void param(const std::string& path, nn::ParamBase& param) override {
    if (std::optional<TensorHandle> grad = param.grad(grads_)) found_.insert(path, *grad);
  }

 private:
  const Gradients& grads_;
  GradientsParams& found_;
};

}  // namespace

GradientsParams GradientsParams::from_walk(const std::function<void(nn::ModuleVisitor&)>& walk,
                                           const Gradients& grads) {
  GradientsParams found;
  GradientFinder finder(grads, found);
  walk(finder);
  return found;
}

std::optional<TensorHandle> GradientsParams::get(const std::string& name) const {
  const auto it = grads_.find(name);
  if (it == grads_.end()) return std::nullopt;
  return it->second;
}

std::optional<TensorHandle> GradientsParams::remove(const std::string& name) {
  auto node = grads_.extract(name);
  if (node.empty()) return std::nullopt;
  return std::move(node.mapped());
}

void GradientsParams::insert(const std::string& name, const TensorHandle& grad) {
  if (!grad.defined()) detail::fail("GradientsParams", "undefined gradient for " + name);
  if (grad.kind() != TensorKind::Float) {
    detail::fail("GradientsParams",
                 "gradient of " + name + " must be a Float tensor, got " + detail::describe(grad));
  }
  grads_.insert_or_assign(name, ops::detach(grad));
}

}  // namespace ember::optim
