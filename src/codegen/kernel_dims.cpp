#include "codegen/kernel_dims.h"

#include <sstream>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember::codegen {

KernelDims kernel_sizes(const Shape& shape) {
  if (shape.rank() > kProgramMaxRank)
    throw InvalidArgument("[program_kernel] shape of rank " + std::to_string(shape.rank()) +
                          ": a program kernel takes at most " + std::to_string(kProgramMaxRank) +
                          " dims");
  KernelDims sizes;
  for (std::size_t d = 0; d < shape.rank(); ++d)
    sizes.d[d] = shape[d];
  return sizes;
}

KernelDims broadcast_strides(const Shape& input, const Shape& output) {
  kernel_sizes(output);  // checks the rank
  const bool fits = input.rank() <= output.rank() && [&] {
    for (std::size_t d = 0; d < input.rank(); ++d) {
      const int64_t size = input[d];
      if (size != 1 && size != output[output.rank() - input.rank() + d]) return false;
    }
    return true;
  }();
  if (!fits) {
    std::ostringstream text;
    text << "[program_kernel] input " << input << " does not broadcast to " << output;
    throw InvalidArgument(text.str());
  }
  KernelDims strides;
  const std::size_t lead = output.rank() - input.rank();
  int64_t stride = 1;
  for (std::size_t d = input.rank(); d-- > 0;) {
    strides.d[lead + d] = input[d] == 1 ? 0 : stride;
    stride *= input[d];
  }
  return strides;
}

MergedDims merge_dims(const std::vector<int64_t>& sizes,
                      const std::vector<std::vector<int64_t>>& strides,
                      std::vector<int64_t> offsets) {
  MergedDims merged;
  merged.strides.resize(strides.size());
  merged.offsets = std::move(offsets);
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool mergeable = !merged.sizes.empty();
    for (std::size_t k = 0; k < strides.size(); ++k)
      mergeable = mergeable && merged.strides[k].back() == strides[k][d] * sizes[d];
    if (mergeable) {
      merged.sizes.back() *= sizes[d];
      for (std::size_t k = 0; k < strides.size(); ++k)
        merged.strides[k].back() = strides[k][d];
      continue;
    }
    merged.sizes.push_back(sizes[d]);
    for (std::size_t k = 0; k < strides.size(); ++k)
      merged.strides[k].push_back(strides[k][d]);
  }
  return merged;
}

MergedDims merged_dims(const Shape& output, std::span<const Shape> inputs) {
  std::vector<std::vector<int64_t>> strides;
  for (const Shape& input : inputs) {
    const KernelDims all = broadcast_strides(input, output);
    strides.emplace_back(all.d, all.d + output.rank());
  }
  return merge_dims(output.dims(), strides, std::vector<int64_t>(inputs.size(), 0));
}

}  // namespace ember::codegen
