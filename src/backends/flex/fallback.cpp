#include "backends/flex/fallback.h"

#include "backends/flex/copy.h"

namespace ember::flex {

HostInputs::HostInputs(Views views) {
  data_.reserve(views.size());
  for (const View& view : views)
    data_.push_back(to_tensor_data(view));
  for (const TensorData& data : data_)
    pointers_.push_back(&data);
}

std::vector<View> to_views(const TensorData& result) {
  return {from_tensor_data(result)};
}

std::vector<View> to_views(const std::vector<TensorData>& results) {
  std::vector<View> views;
  views.reserve(results.size());
  for (const TensorData& result : results)
    views.push_back(from_tensor_data(result));
  return views;
}

}  // namespace ember::flex
