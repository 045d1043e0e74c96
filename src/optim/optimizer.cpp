#include "ember/optim/optimizer.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <utility>

#include "checks.h"
#include "ember/autodiff.h"
#include "ember/tensor_ops.h"

namespace ember::optim {
namespace {

/// A param step updates: its name, the param, and its gradient.
struct Target {
  std::string name;
  nn::ParamBase* param;
  TensorHandle grad;
};

class TargetFinder : public nn::ModuleVisitor {
 public:
  explicit TargetFinder(const GradientsParams& grads) : grads_(grads) {}
  void param(const std::string& path, nn::ParamBase& param) override {
    if (!param.trainable()) return;
    if (std::optional<TensorHandle> grad = grads_.get(path))
      targets.push_back({path, &param, *grad});
  }
  std::vector<Target> targets;

 private:
  const GradientsParams& grads_;
};

/// The state of one param as load_state reads it.
struct LoadedParam {
  std::map<std::string, TensorData> tensors;
  std::map<std::string, double> scalars;
};

std::string entry_name(const std::string& param, const std::string& slot) {
  return param + "." + slot;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string join(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names)
    joined += (joined.empty() ? "" : ", ") + name;
  return joined.empty() ? "none" : joined;
}

/// entry "<param>.<slot>" as (param, slot); InvalidArgument unless slot is one of slots.
std::pair<std::string, std::string> parse_entry(std::string_view owner, const std::string& entry,
                                                const std::vector<std::string>& slots) {
  const std::size_t dot = entry.rfind('.');
  if (dot == std::string::npos || dot == 0 || !contains(slots, entry.substr(dot + 1))) {
    detail::fail(owner, "unknown state entry '" + entry + "' (slots kept: " + join(slots) + ")");
  }
  return {entry.substr(0, dot), entry.substr(dot + 1)};
}

std::map<std::string, LoadedParam> group_by_param(std::string_view owner,
                                                  const OptimizerState& state,
                                                  const std::vector<std::string>& tensor_slots,
                                                  const std::vector<std::string>& scalar_slots) {
  std::map<std::string, LoadedParam> params;
  for (const auto& [entry, data] : state.tensors) {
    const auto [param, slot] = parse_entry(owner, entry, tensor_slots);
    if (kind_of(data.dtype()) != TensorKind::Float) {
      detail::fail(owner, "state entry " + entry + " is " +
                              detail::describe(data.shape(), data.dtype()) +
                              ", not a Float tensor");
    }
    params[param].tensors.emplace(slot, data);
  }
  for (const auto& [entry, value] : state.scalars) {
    const auto [param, slot] = parse_entry(owner, entry, scalar_slots);
    if (!detail::is_counter(value)) {
      detail::fail(owner, "state entry " + entry + " is " + detail::format_number(value) +
                              ", not a non-negative integer");
    }
    params[param].scalars.emplace(slot, value);
  }
  return params;
}

/// InvalidArgument unless loaded has every slot, its tensors all of one shape.
void check_complete(std::string_view owner, const std::string& param, const LoadedParam& loaded,
                    const std::vector<std::string>& tensor_slots,
                    const std::vector<std::string>& scalar_slots) {
  for (const std::string& slot : tensor_slots) {
    if (!loaded.tensors.contains(slot))
      detail::fail(owner, "state of " + param + " lacks entry " + entry_name(param, slot));
  }
  for (const std::string& slot : scalar_slots) {
    if (!loaded.scalars.contains(slot))
      detail::fail(owner, "state of " + param + " lacks entry " + entry_name(param, slot));
  }
  if (loaded.tensors.empty()) return;
  const auto& [first_slot, first] = *loaded.tensors.begin();
  for (const auto& [slot, data] : loaded.tensors) {
    if (data.shape() != first.shape()) {
      std::ostringstream message;
      message << "state entry " << entry_name(param, slot) << " has shape " << data.shape()
              << " but " << entry_name(param, first_slot) << " has " << first.shape();
      detail::fail(owner, message.str());
    }
  }
}

/// InvalidArgument unless the state tensor slot of param name has param's shape.
void check_slot_shape(std::string_view owner, const std::string& name, const std::string& slot,
                      const Shape& shape, const TensorHandle& param) {
  if (shape == param.shape()) return;
  std::ostringstream message;
  message << "state entry " << entry_name(name, slot) << " has shape " << shape << " but param "
          << name << " has " << param.shape();
  detail::fail(owner, message.str());
}

}  // namespace

void Optimizer::step_walk(const std::function<void(nn::ModuleVisitor&)>& walk,
                          const GradientsParams& grads, double lr) {
  detail::check_non_negative(name(), "lr", lr);
  TargetFinder finder(grads);
  walk(finder);
  // Every check before the first update, so that a bad gradient or state changes nothing.
  for (const Target& target : finder.targets) {
    const TensorHandle& param = target.param->handle();
    if (target.grad.shape() != param.shape() || target.grad.dtype() != param.dtype() ||
        target.grad.device() != param.device()) {
      std::ostringstream message;
      message << "gradient of " << target.name << " is " << detail::describe(target.grad) << " on "
              << target.grad.device() << " but the param is " << detail::describe(param) << " on "
              << param.device();
      detail::fail(name(), message.str());
    }
    check_state_shapes(target.name, param);
  }
  NoGradGuard no_grad;
  for (const Target& target : finder.targets) {
    place_state(target.name, target.param->handle());
    target.param->assign(update(target.name, target.param->handle(), target.grad, lr));
  }
}

void Optimizer::check_state_shapes(const std::string& name, const TensorHandle& param) const {
  if (const auto kept = states_.find(name); kept != states_.end()) {
    for (const auto& [slot, tensor] : kept->second.tensors)
      check_slot_shape(this->name(), name, slot, tensor.shape(), param);
  }
  if (const auto loaded = loaded_.find(name); loaded != loaded_.end()) {
    for (const auto& [slot, data] : loaded->second)
      check_slot_shape(this->name(), name, slot, data.shape(), param);
  }
}

void Optimizer::place_state(const std::string& name, const TensorHandle& param) {
  ParamState& state = states_[name];
  if (auto loaded = loaded_.extract(name); !loaded.empty()) {
    const TensorCreationOptions options =
        TensorCreationOptions(param.device()).with_dtype(param.dtype());
    for (const auto& [slot, data] : loaded.mapped())
      state.tensors[slot] = ops::from_data(data, options, TensorKind::Float);
  }
  for (auto& [slot, tensor] : state.tensors) {
    if (tensor.device() != param.device()) tensor = ops::to_device(tensor, param.device());
  }
}

OptimizerState Optimizer::state() const {
  OptimizerState saved;
  for (const auto& [param, state] : states_) {
    for (const auto& [slot, tensor] : state.tensors)
      saved.tensors.emplace(entry_name(param, slot), ops::into_data(tensor));
    for (const auto& [slot, value] : state.scalars)
      saved.scalars.emplace(entry_name(param, slot), value);
  }
  for (const auto& [param, slots] : loaded_) {
    for (const auto& [slot, data] : slots)
      saved.tensors.emplace(entry_name(param, slot), data);
  }
  return saved;
}

void Optimizer::load_state(const OptimizerState& state) {
  const StateSlots expected = slots();
  std::map<std::string, LoadedParam> params =
      group_by_param(name(), state, expected.tensors, expected.scalars);
  for (const auto& [param, loaded] : params)
    check_complete(name(), param, loaded, expected.tensors, expected.scalars);
  std::map<std::string, ParamState> states;
  std::map<std::string, std::map<std::string, TensorData>> tensors;
  for (auto& [param, loaded] : params) {
    states[param].scalars = std::move(loaded.scalars);
    tensors[param] = std::move(loaded.tensors);
  }
  states_ = std::move(states);
  loaded_ = std::move(tensors);
}

}  // namespace ember::optim
