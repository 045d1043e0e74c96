#include "ember/nn/param.h"

#include <sstream>
#include <string_view>

#include "ember/error.h"

namespace ember::nn {
namespace {

/// InvalidArgument "[role] ..." unless value matches current's shape and kind.
void check_same_meta(const TensorHandle& current, const TensorHandle& value,
                     std::string_view role) {
  if (!value.defined()) throw InvalidArgument("[" + std::string(role) + "] undefined tensor");
  if (!current.defined()) return;
  if (current.shape() == value.shape() && current.kind() == value.kind()) return;
  std::ostringstream message;
  message << '[' << role << "] new value of shape " << value.shape() << " (" << value.dtype()
          << ") does not match the current " << current.shape() << " (" << current.dtype() << ')';
  throw InvalidArgument(message.str());
}

}  // namespace

ParamBase::ParamBase(TensorHandle value, bool trainable) : value_(), trainable_(trainable) {
  value_ = as_leaf(std::move(value));
}

TensorHandle ParamBase::as_leaf(TensorHandle value) const {
  TensorHandle constant = ops::detach(value);
  const bool tracked =
      trainable_ && constant.kind() == TensorKind::Float && constant.device().is_autodiff();
  return tracked ? ops::require_grad(constant) : constant;
}

void ParamBase::assign(TensorHandle value) {
  check_same_meta(value_, value, "param");
  value_ = as_leaf(std::move(value));
}

void ParamBase::reset(TensorHandle value) {
  value_ = as_leaf(std::move(value));
}

void ParamBase::set_trainable(bool trainable) {
  trainable_ = trainable;
  if (value_.defined()) value_ = as_leaf(value_);
}

std::optional<TensorHandle> ParamBase::grad(const Gradients& grads) const {
  if (!trainable_ || !ops::is_require_grad(value_)) return std::nullopt;
  return grads.get(value_);
}

void BufferBase::assign(TensorHandle value) {
  check_same_meta(value_, value, "buffer");
  value_ = ops::detach(value);
}

}  // namespace ember::nn
