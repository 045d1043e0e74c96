// MNIST-format image classification datasets (MNIST, Fashion-MNIST, KMNIST, ...): 28 x 28
// grayscale images and their labels, stored as a pair of IDX files. One reader, MnistLike,
// serves all of them; MnistBatcher turns their items into tensors.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/tensor.h"
#include "ember/tensor_data.h"

namespace ember::data {

inline constexpr std::size_t kMnistImageSide = 28;
inline constexpr std::size_t kMnistImagePixels = kMnistImageSide * kMnistImageSide;

/// One example: a 28 x 28 image, row-major, 0 (background) to 255, and its class.
struct MnistItem {
  std::array<uint8_t, kMnistImagePixels> image;
  uint8_t label;
  friend bool operator==(const MnistItem&, const MnistItem&) = default;
};

/// The two halves of an MNIST-format dataset, named as in the file names
/// ("train-images-idx3-ubyte", "t10k-labels-idx1-ubyte", ...).
enum class MnistSplit { Train, Test };

/// An MNIST-format dataset held in memory (the images as u8, 784 bytes each).
class MnistLike final : public Dataset<MnistItem> {
 public:
  /// Reads an images IDX file (u8, [n, 28, 28]) and a labels IDX file (u8, [n]), each plain or
  /// gzip. InvalidArgument "[MnistLike] ..." naming the file when either cannot be read (see
  /// read_idx), has another dtype or shape, when the counts differ, or when a label is not
  /// below num_classes.
  static std::shared_ptr<const MnistLike> from_files(const std::filesystem::path& images,
                                                     const std::filesystem::path& labels,
                                                     std::size_t num_classes = 10);
  /// Reads the split from dir, which holds the files under their usual names:
  /// {train,t10k}-{images-idx3,labels-idx1}-ubyte, each with ".gz" (preferred) or without.
  /// InvalidArgument naming dir and the missing file when neither form exists.
  static std::shared_ptr<const MnistLike> from_dir(const std::filesystem::path& dir,
                                                   MnistSplit split, std::size_t num_classes = 10);

  std::optional<MnistItem> get(std::size_t index) const override;
  std::size_t len() const override;

 private:
  MnistLike(TensorData images, TensorData labels);

  TensorData images_;  ///< u8 [n, 28, 28]
  TensorData labels_;  ///< u8 [n]
};

/// A batch of MNIST-format items.
struct MnistBatch {
  Tensor<4> images;        ///< [B, 1, 28, 28], (pixel / 255 - mean) / std, device float dtype
  Tensor<1, Int> targets;  ///< [B] class indices, device int dtype
};

/// Batcher for a DataLoader over an MnistLike dataset: stacks the images, scales them to [0, 1]
/// and normalizes them with the dataset's mean and standard deviation. Stateless, so safe on
/// several loader threads.
class MnistBatcher {
 public:
  /// InvalidArgument "[MnistBatcher] ..." unless mean is finite and stddev finite and positive.
  MnistBatcher(double mean, double stddev);

  MnistBatch operator()(const std::vector<MnistItem>& items, const Device& device) const;
  double mean() const { return mean_; }
  double stddev() const { return stddev_; }

 private:
  double mean_;
  double stddev_;
};

}  // namespace ember::data
