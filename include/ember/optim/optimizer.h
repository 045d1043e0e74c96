// Optimizer: the base of every optimizer (sgd.h, adam.h, rmsprop.h, adagrad.h). An optimizer is
// not bound to a model: step walks the model it is given and updates each trainable param that
// has a gradient, keeping its per-param state (momentum, moments, step counts) by param name.
//
//   auto optimizer = optim::AdamConfig{}.init();
//   const Gradients grads = loss.backward();
//   optimizer.step(model, optim::GradientsParams::from(model, grads), 1e-3);
//
// Its state saves and restores by name (state, load_state), so a run can stop and resume with
// the same updates bit for bit. An optimizer is a value: a copy is an independent clone.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ember/nn/module.h"
#include "ember/optim/gradients_params.h"
#include "ember/optim/state.h"
#include "ember/tensor_data.h"
#include "ember/tensor_handle.h"

namespace ember::optim {

/// What an optimizer keeps for one param: tensors shaped like the param ("exp_avg") and
/// counters ("step").
struct ParamState {
  std::map<std::string, TensorHandle> tensors;
  std::map<std::string, double> scalars;
};

/// The slot names of a param's state once the optimizer has updated it.
struct StateSlots {
  std::vector<std::string> tensors;
  std::vector<std::string> scalars;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  /// One update of every trainable param of model that has a gradient in grads (other params,
  /// and gradients of names model does not have, are left alone), with learning rate lr. Before
  /// anything changes it checks lr (finite, >= 0), that each gradient has its param's shape,
  /// dtype and device, and that the state kept for each param (loaded by load_state, or from
  /// earlier steps) has the param's shape: InvalidArgument "[<name()>] ..." otherwise. State moves
  /// to the param's device when the model has moved.
  template <nn::Module M>
  void step(M& model, const GradientsParams& grads, double lr) {
    step_walk([&](nn::ModuleVisitor& v) { nn::visit(model, v); }, grads, lr);
  }

  /// Every param's state: tensors "<param>.<slot>" (read back from the device) and counters
  /// "<param>.<slot>". Params never updated have none.
  OptimizerState state() const;
  /// Replaces the whole state with state (as saved by state() of an optimizer of the same kind
  /// and configuration). Checked before anything changes, InvalidArgument "[<name()>] ..."
  /// naming the entry: a name that is not "<param>.<slot>" with a slot this optimizer keeps
  /// (SGD without momentum keeps none), a param lacking one of its slots, a non-Float tensor,
  /// tensors of one param with different shapes, a counter that is not a non-negative integer.
  /// (A param with no entry at all is one not updated yet.)
  /// Tensors go to a param's device and dtype at its next update, where their shape is checked.
  void load_state(const OptimizerState& state);

  /// The optimizer's name, which starts its error messages ("Adam").
  virtual std::string_view name() const = 0;
  /// A copy: the same configuration and state, updated apart from now on (data-parallel training
  /// keeps one per model replica).
  virtual std::unique_ptr<Optimizer> clone() const = 0;

 protected:
  Optimizer() = default;
  Optimizer(const Optimizer&) = default;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(const Optimizer&) = default;
  Optimizer& operator=(Optimizer&&) = default;

  /// The slots this optimizer, as configured, keeps for every param it updates.
  virtual StateSlots slots() const = 0;
  /// The new value of param (named name) after one step with gradient grad (same shape and
  /// dtype) and learning rate lr. Runs under NoGradGuard; reads and writes state_of(name), whose
  /// tensors are on param's device.
  virtual TensorHandle update(const std::string& name, const TensorHandle& param,
                              const TensorHandle& grad, double lr) = 0;
  /// name's state (empty before its first update).
  ParamState& state_of(const std::string& name) { return states_[name]; }

 private:
  void step_walk(const std::function<void(nn::ModuleVisitor&)>& walk, const GradientsParams& grads,
                 double lr);
  /// InvalidArgument unless name's kept and loaded state tensors have param's shape.
  void check_state_shapes(const std::string& name, const TensorHandle& param) const;
  /// Moves name's loaded and kept state tensors to param's device (loaded ones in its dtype).
  void place_state(const std::string& name, const TensorHandle& param);

  std::map<std::string, ParamState> states_;
  /// Tensors from load_state, by param and slot, until the param's next update says on which
  /// device and in which dtype they belong.
  std::map<std::string, std::map<std::string, TensorData>> loaded_;
};

}  // namespace ember::optim
