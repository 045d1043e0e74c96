// The module system. A module is a plain struct whose tensors are Param and Buffer members and
// whose sub-modules are members too; it lists the members to visit once, with EMBER_MODULE:
//
//   struct Mlp {
//     nn::Linear fc1, fc2;
//     nn::Dropout dropout;
//     EMBER_MODULE(fc1, fc2, dropout)
//     Tensor<2> forward(const Tensor<2>& x) const { ... }
//   };
//
// That line is the only boilerplate: it gives every generic operation below (named parameters
// with stable dotted names such as "fc1.weight", moving to a device, freezing, switching between
// training and inference, records, optimizers) a way to walk the module. Members may also be
// std::vector, std::array or std::optional of modules, params or buffers ("layers.0.weight").
// A module with a `bool training` member has it set by train/eval. (Module structs live at
// namespace or class scope: C++ forbids the member template EMBER_MODULE declares in a local
// class.) Modules are values: a copy is
// a clone (see nn/param.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/nn/param.h"

// ---- EMBER_MODULE(members...) ------------------------------------------------------------------
// C++20 __VA_OPT__ recursion: EMBER_DETAIL_FOR_EACH(f, a, b, c) → f(a) f(b) f(c) (up to 256).
#define EMBER_DETAIL_PARENS ()
#define EMBER_DETAIL_EXPAND(...) \
  EMBER_DETAIL_EXPAND3(EMBER_DETAIL_EXPAND3(EMBER_DETAIL_EXPAND3(__VA_ARGS__)))
#define EMBER_DETAIL_EXPAND3(...) \
  EMBER_DETAIL_EXPAND2(EMBER_DETAIL_EXPAND2(EMBER_DETAIL_EXPAND2(__VA_ARGS__)))
#define EMBER_DETAIL_EXPAND2(...) \
  EMBER_DETAIL_EXPAND1(EMBER_DETAIL_EXPAND1(EMBER_DETAIL_EXPAND1(__VA_ARGS__)))
#define EMBER_DETAIL_EXPAND1(...) __VA_ARGS__
#define EMBER_DETAIL_FOR_EACH(f, ...) \
  __VA_OPT__(EMBER_DETAIL_EXPAND(EMBER_DETAIL_FOR_EACH_STEP(f, __VA_ARGS__)))
#define EMBER_DETAIL_FOR_EACH_STEP(f, first, ...) \
  f(first) __VA_OPT__(EMBER_DETAIL_FOR_EACH_AGAIN EMBER_DETAIL_PARENS(f, __VA_ARGS__))
#define EMBER_DETAIL_FOR_EACH_AGAIN() EMBER_DETAIL_FOR_EACH_STEP
#define EMBER_DETAIL_VISIT_MEMBER(member) visit(#member, self.member);

/// Lists a module's members (params, buffers, sub-modules, containers of them) for nn::visit.
#define EMBER_MODULE(...)                                                                  \
  template <typename Self, typename Visit>                                                 \
  static void visit_members([[maybe_unused]] Self& self, [[maybe_unused]] Visit&& visit) { \
    EMBER_DETAIL_FOR_EACH(EMBER_DETAIL_VISIT_MEMBER, __VA_ARGS__)                          \
  }

namespace ember::nn {

/// What a walk over a module sees, in member order, each with its dotted path.
class ModuleVisitor {
 public:
  virtual ~ModuleVisitor() = default;
  virtual void param(const std::string& path, ParamBase& param) { (void)path, (void)param; }
  virtual void buffer(const std::string& path, BufferBase& buffer) { (void)path, (void)buffer; }
  /// The `training` flag of the module at path ("" for the root).
  virtual void training(const std::string& path, bool& flag) { (void)path, (void)flag; }
};

/// A type listed with EMBER_MODULE.
template <typename M>
concept Module = requires(M& m) {
  M::visit_members(m, [](const char*, auto&) {});
};

namespace detail {
std::string join_path(const std::string& prefix, std::string_view name);

template <typename T>
void visit_member(T& member, const std::string& path, ModuleVisitor& visitor);

template <Module M>
void visit_module(M& module, const std::string& path, ModuleVisitor& visitor) {
  if constexpr (requires {
                  { module.training } -> std::same_as<bool&>;
                }) {
    visitor.training(path, module.training);
  }
  M::visit_members(module, [&](const char* name, auto& member) {
    visit_member(member, join_path(path, name), visitor);
  });
}

template <typename T>
void visit_sequence(T& sequence, const std::string& path, ModuleVisitor& visitor) {
  std::size_t i = 0;
  for (auto& element : sequence)
    visit_member(element, join_path(path, std::to_string(i++)), visitor);
}

template <typename T>
void visit_member(T& member, const std::string& path, ModuleVisitor& visitor) {
  if constexpr (std::is_base_of_v<ParamBase, T>) {
    visitor.param(path, member);
  } else if constexpr (std::is_base_of_v<BufferBase, T>) {
    visitor.buffer(path, member);
  } else if constexpr (Module<T>) {
    visit_module(member, path, visitor);
  } else if constexpr (requires {
                         member.has_value();
                         *member;
                       }) {
    if (member.has_value()) visit_member(*member, path, visitor);
  } else if constexpr (requires {
                         member.begin();
                         member.end();
                       }) {
    visit_sequence(member, path, visitor);
  } else {
    static_assert(sizeof(T) == 0,
                  "EMBER_MODULE lists a member that is not a Param, a Buffer, a module, or an "
                  "optional, vector or array of those");
  }
}
}  // namespace detail

/// Walks module's params, buffers and training flags.
template <Module M>
void visit(M& module, ModuleVisitor& visitor) {
  detail::visit_module(module, "", visitor);
}

/// One named tensor of a module.
struct NamedTensor {
  std::string name;
  TensorHandle tensor;
};

namespace detail {
std::vector<NamedTensor> collect(const std::function<void(ModuleVisitor&)>& walk, bool params,
                                 bool buffers);
}  // namespace detail

/// The params, in member order, with their dotted names ("fc1.weight").
template <Module M>
std::vector<NamedTensor> named_parameters(const M& module) {
  M& m = const_cast<M&>(module);  // the collecting visitor only reads
  return detail::collect([&](ModuleVisitor& v) { visit(m, v); }, true, false);
}
/// The buffers, in member order, with their dotted names.
template <Module M>
std::vector<NamedTensor> named_buffers(const M& module) {
  M& m = const_cast<M&>(module);
  return detail::collect([&](ModuleVisitor& v) { visit(m, v); }, false, true);
}
/// Params then buffers: everything a record saves.
template <Module M>
std::vector<NamedTensor> state(const M& module) {
  M& m = const_cast<M&>(module);
  return detail::collect([&](ModuleVisitor& v) { visit(m, v); }, true, true);
}
/// The number of elements of all params (trainable or not).
template <Module M>
int64_t num_parameters(const M& module) {
  int64_t n = 0;
  for (const NamedTensor& p : named_parameters(module))
    n += p.tensor.shape().num_elements();
  return n;
}

namespace detail {
void to_device(const std::function<void(ModuleVisitor&)>& walk, const Device& device);
void set_training(const std::function<void(ModuleVisitor&)>& walk, bool training);
void set_trainable(const std::function<void(ModuleVisitor&)>& walk, std::string_view prefix,
                   bool trainable);
}  // namespace detail

/// module with every param and buffer moved to device (params stay trainable: on an autodiff
/// device they require grad again).
template <Module M>
M to_device(M module, const Device& device) {
  detail::to_device([&](ModuleVisitor& v) { visit(module, v); }, device);
  return module;
}
/// Sets every `training` flag: dropout drops, batch norm uses batch statistics.
template <Module M>
void train(M& module) {
  detail::set_training([&](ModuleVisitor& v) { visit(module, v); }, true);
}
/// Clears every `training` flag: inference behaviour.
template <Module M>
void eval(M& module) {
  detail::set_training([&](ModuleVisitor& v) { visit(module, v); }, false);
}
/// Freezes the params under prefix (a dotted path: "fc1" matches "fc1.weight", not
/// "fc10.weight"; "" matches all): no gradient, no update.
template <Module M>
void freeze(M& module, std::string_view prefix = "") {
  detail::set_trainable([&](ModuleVisitor& v) { visit(module, v); }, prefix, false);
}
/// Makes the params under prefix trainable again.
template <Module M>
void unfreeze(M& module, std::string_view prefix = "") {
  detail::set_trainable([&](ModuleVisitor& v) { visit(module, v); }, prefix, true);
}

}  // namespace ember::nn
