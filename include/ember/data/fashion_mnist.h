// Fashion-MNIST (Zalando): 60000 training and 10000 test 28 x 28 grayscale images of clothing in
// 10 classes, 6000 / 1000 per class. Debian's dataset-fashion-mnist package installs it in
// /usr/share/datasets/fashion-mnist. It has MNIST's format, so it is read by MnistLike.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <string_view>

#include "ember/data/mnist.h"

namespace ember::data {

class FashionMnist {
 public:
  /// The per-pixel mean and standard deviation of the training images scaled to [0, 1].
  static constexpr double kMean = 0.2860;
  static constexpr double kStd = 0.3530;
  /// The class names, indexed by label.
  static constexpr std::array<std::string_view, 10> kClassNames = {
      "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
      "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

  /// $EMBER_FASHION_MNIST_DIR when set and not empty, else /usr/share/datasets/fashion-mnist.
  static std::filesystem::path default_dir();
  /// The 60000 training items, read from dir (see MnistLike::from_dir for the file names and
  /// errors).
  static std::shared_ptr<const MnistLike> train(const std::filesystem::path& dir = default_dir());
  /// The 10000 test items.
  static std::shared_ptr<const MnistLike> test(const std::filesystem::path& dir = default_dir());
};

/// MnistBatcher with Fashion-MNIST's mean and standard deviation.
class FashionMnistBatcher : public MnistBatcher {
 public:
  FashionMnistBatcher() : MnistBatcher(FashionMnist::kMean, FashionMnist::kStd) {}
};

}  // namespace ember::data
