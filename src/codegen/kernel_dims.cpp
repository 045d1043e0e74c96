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

MergedDims merged_dims(const Shape& output, std::span<const Shape> inputs) {
  MergedDims merged;
  merged.strides.resize(inputs.size());
  std::vector<KernelDims> all;
  for (const Shape& input : inputs)
    all.push_back(broadcast_strides(input, output));
  for (std::size_t d = 0; d < output.rank(); ++d) {
    if (output[d] == 1) continue;
    bool mergeable = !merged.sizes.empty();
    std::vector<int64_t> strides;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      strides.push_back(all[k].d[d]);
      mergeable = mergeable && merged.strides[k].back() == strides[k] * output[d];
    }
    if (mergeable) {
      merged.sizes.back() *= output[d];
      for (std::size_t k = 0; k < inputs.size(); ++k)
        merged.strides[k].back() = strides[k];
      continue;
    }
    merged.sizes.push_back(output[d]);
    for (std::size_t k = 0; k < inputs.size(); ++k)
      merged.strides[k].push_back(strides[k]);
  }
  return merged;
}

}  // namespace ember::codegen
