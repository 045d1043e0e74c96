// MnistBatcher (declared in mnist.h): MNIST-format items to normalized tensors.
#include "ember/data/mnist.h"

#include <cmath>
#include <sstream>

#include "ember/error.h"

namespace ember::data {

MnistBatcher::MnistBatcher(double mean, double stddev) : mean_(mean), stddev_(stddev) {
  if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev <= 0) {
    std::ostringstream message;
    message << "[MnistBatcher] mean " << mean << " and stddev " << stddev
            << " must be finite, with stddev > 0";
    throw InvalidArgument(message.str());
  }
}

MnistBatch MnistBatcher::operator()(const std::vector<MnistItem>& items,
                                    const Device& device) const {
  const auto n = static_cast<int64_t>(items.size());
  const auto side = static_cast<int64_t>(kMnistImageSide);
  std::vector<double> pixels;
  pixels.reserve(items.size() * kMnistImagePixels);
  std::vector<int64_t> labels;
  labels.reserve(items.size());
  for (const MnistItem& item : items) {
    for (uint8_t p : item.image)
      pixels.push_back((p / 255.0 - mean_) / stddev_);
    labels.push_back(item.label);
  }
  const DeviceSettings settings = device.settings();
  const TensorCreationOptions options(device);
  return {Tensor<4>::from_data(TensorData(pixels, Shape{n, 1, side, side}),
                               options.with_dtype(settings.float_dtype)),
          Tensor<1, Int>::from_data(TensorData(labels, Shape{n}),
                                    options.with_dtype(settings.int_dtype))};
}

}  // namespace ember::data
