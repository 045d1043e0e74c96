// GradientsParams: the gradients of a module's params, by param name. A backward pass gives
// Gradients keyed by leaf tensor; GradientsParams::from looks each param of a module up in them,
// so that optimizers, clipping and accumulation work with the stable dotted names
// ("fc1.weight") that records and optimizer states use too.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "ember/autodiff.h"
#include "ember/nn/module.h"
#include "ember/tensor_handle.h"

namespace ember::optim {

class GradientsParams {
 public:
  using Map = std::map<std::string, TensorHandle>;

  GradientsParams() = default;

  /// The gradient of each param of model found in grads. Frozen params, and params no gradient
  /// reached, are absent.
  template <nn::Module M>
  static GradientsParams from(const M& model, const Gradients& grads) {
    M& m = const_cast<M&>(model);  // the collecting visitor only reads
    return from_walk([&](nn::ModuleVisitor& v) { nn::visit(m, v); }, grads);
  }

  /// name's gradient, or nullopt.
  std::optional<TensorHandle> get(const std::string& name) const;
  /// Removes and returns name's gradient (nullopt when absent).
  std::optional<TensorHandle> remove(const std::string& name);
  /// Sets name's gradient (replacing any), detached from any graph. InvalidArgument
  /// "[GradientsParams] ..." for an undefined or non-Float tensor.
  void insert(const std::string& name, const TensorHandle& grad);
  std::size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }

  /// The (name, gradient) pairs in name order.
  Map::const_iterator begin() const { return grads_.begin(); }
  Map::const_iterator end() const { return grads_.end(); }

 private:
  static GradientsParams from_walk(const std::function<void(nn::ModuleVisitor&)>& walk,
                                   const Gradients& grads);

  Map grads_;
};

}  // namespace ember::optim
