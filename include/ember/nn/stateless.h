// The Config of the layers without params, buffers, sub-modules or options (activations):
// StatelessConfig<Relu>{}.init(device) builds them like every other layer.
#pragma once

#include "ember/device.h"
#include "ember/nn/module.h"

namespace ember::nn {

/// The Config of a layer without options: `nn::ReluConfig{}.init(device)` gives a Relu, so every
/// layer is built the same way.
template <typename Layer>
struct StatelessConfig {
  Layer init(const Device& /*device*/) const { return Layer{}; }
};

}  // namespace ember::nn
