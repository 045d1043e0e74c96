// The generic fallback: any op without a flex kernel (or whose flex kernel declines a dtype or
// layout) runs the ndarray reference kernel on contiguous copies of its inputs. One path for
// every op, so flex runs everything ndarray does, with the same results.
#pragma once

#include <span>
#include <vector>

#include "backends/flex/view.h"
#include "backends/ndarray/kernels.h"

namespace ember::flex {

/// Contiguous host copies of a kernel's input views, in the form the ndarray kernels take.
class HostInputs {
 public:
  explicit HostInputs(Views views);
  ndarray::Inputs pointers() const { return pointers_; }

 private:
  std::vector<TensorData> data_;
  std::vector<const TensorData*> pointers_;
};

/// New views holding the results of an ndarray kernel (one tensor, or several for ops with
/// several outputs).
std::vector<View> to_views(const TensorData& result);
std::vector<View> to_views(const std::vector<TensorData>& results);

/// op run by its ndarray kernel on the inputs' values.
template <typename Op>
std::vector<View> run_on_ndarray(const Op& op, Views inputs,
                                 std::span<const ir::TensorMeta> outputs) {
  const HostInputs host(inputs);
  return to_views(ndarray::run(op, host.pointers(), outputs));
}

}  // namespace ember::flex
