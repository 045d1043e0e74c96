// The tensors a module owns: Param (trained by an optimizer, saved in records) and Buffer (state
// that is saved but not trained, such as batch norm's running statistics).
//
// Modules are values: copying a module copies its tensor handles, and since ops never modify a
// tensor in place, the copy is an independent clone. An optimizer step or a record load replaces
// a param's tensor; it never writes into it.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>

#include "ember/autodiff.h"
#include "ember/tensor.h"

namespace ember::nn {

/// What every Param is, whatever its rank: a tensor and whether it is trained. Visitors
/// (nn/module.h) see Params through this type.
class ParamBase {
 public:
  ParamBase() = default;
  /// value becomes a leaf that requires grad when trainable and its device has autodiff on.
  explicit ParamBase(TensorHandle value, bool trainable = true);

  const TensorHandle& handle() const { return value_; }
  /// Replaces the value, keeping trainable; InvalidArgument "[param] ..." when value's shape or
  /// kind differs from the current one (use reset to change the shape on purpose).
  void assign(TensorHandle value);
  /// Replaces the value, whatever its shape.
  void reset(TensorHandle value);
  /// A frozen param (trainable false) is a constant: no gradient, optimizers skip it.
  bool trainable() const { return trainable_; }
  void set_trainable(bool trainable);
  /// Its gradient in grads (nullopt when frozen or when none reached it).
  std::optional<TensorHandle> grad(const Gradients& grads) const;

 private:
  /// value detached, then marked as requiring grad when that applies.
  TensorHandle as_leaf(TensorHandle value) const;

  TensorHandle value_;
  bool trainable_ = true;
};

/// A trainable tensor of rank D: `nn::Param<2> weight;`, read with `*weight` or `weight->`.
template <std::size_t D>
class Param : public ParamBase {
 public:
  Param() = default;
  explicit Param(const Tensor<D>& value, bool trainable = true)
      : ParamBase(value.handle(), trainable) {}

  Tensor<D> value() const { return Tensor<D>(handle()); }
  Tensor<D> operator*() const { return value(); }
  /// The tensor's methods: weight->transpose().
  struct Arrow {
    Tensor<D> tensor;
    const Tensor<D>* operator->() const { return &tensor; }
  };
  Arrow operator->() const { return {value()}; }
  std::optional<Tensor<D>> grad(const Gradients& grads) const {
    std::optional<TensorHandle> g = ParamBase::grad(grads);
    if (!g) return std::nullopt;
    return Tensor<D>(std::move(*g));
  }
};

/// What every Buffer is: a tensor saved with the module and moved with it, never trained.
class BufferBase {
 public:
  BufferBase() = default;
  explicit BufferBase(TensorHandle value) : value_(std::move(value)) {}
  const TensorHandle& handle() const { return value_; }
  /// Replaces the value; InvalidArgument "[buffer] ..." when its shape or kind differs.
  void assign(TensorHandle value);

 private:
  TensorHandle value_;
};

/// A state tensor of rank D and kind K.
template <std::size_t D, typename K = Float>
class Buffer : public BufferBase {
 public:
  Buffer() = default;
  explicit Buffer(const Tensor<D, K>& value) : BufferBase(value.handle()) {}
  Tensor<D, K> value() const { return Tensor<D, K>(handle()); }
  Tensor<D, K> operator*() const { return value(); }
};

}  // namespace ember::nn
