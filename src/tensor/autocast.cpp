#include "tensor/autocast.h"

#include "ir/autocast_policy.h"

namespace ember::tensor {
namespace {

/// Per thread, as autodiff's recording state is: a backward pass on one thread leaves autocast on
/// for the others.
thread_local bool suspended = false;

/// The dtype op's policy runs its float inputs in, and which inputs it casts; nullopt for an op
/// that keeps its dtypes.
struct Target {
  DType dtype;
  bool (*eligible)(DType);
};

/// torch.autocast's eligibility: f64 stays f64 in a lowered op (it was asked for explicitly).
bool lowerable(DType d) {
  return is_float(d) && d != DType::F64;
}
bool reduced(DType d) {
  return d == DType::F16 || d == DType::BF16;
}

std::optional<Target> target_of(ir::AutocastPolicy policy, FloatDType dtype) {
  switch (policy) {
    case ir::AutocastPolicy::Lower:
      return Target{to_dtype(dtype), lowerable};
    case ir::AutocastPolicy::F32:
      return Target{DType::F32, reduced};
    case ir::AutocastPolicy::Keep:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

AutocastSuspended::AutocastSuspended() : previous_(suspended) {
  suspended = true;
}

AutocastSuspended::~AutocastSuspended() {
  suspended = previous_;
}

std::optional<ops::Handles> autocast_inputs(const ir::Op& op, FloatDType dtype,
                                            std::span<const TensorHandle> inputs) {
  if (suspended) return std::nullopt;
  const std::optional<Target> target = target_of(ir::autocast_policy(op), dtype);
  if (!target) return std::nullopt;
  const auto needs_cast = [&](const TensorHandle& x) {
    const DType d = x.dtype();
    return d != target->dtype && target->eligible(d);
  };
  bool any = false;
  for (const TensorHandle& x : inputs)
    any = any || needs_cast(x);
  if (!any) return std::nullopt;
  ops::Handles cast;
  cast.reserve(inputs.size());
  for (const TensorHandle& x : inputs)
    cast.push_back(needs_cast(x) ? ops::cast(x, target->dtype) : x);
  return cast;
}

}  // namespace ember::tensor
