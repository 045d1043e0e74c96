// MnistLike (mnist.h): the MNIST-format reader shared by MNIST, Fashion-MNIST and the like.
#include "ember/data/mnist.h"

#include <cstring>
#include <sstream>
#include <string>

#include "ember/data/checks.h"
#include "ember/data/idx.h"
#include "ember/error.h"

namespace ember::data {
namespace {

namespace fs = std::filesystem;

template <typename... Parts>
[[noreturn]] void fail(const fs::path& path, const Parts&... parts) {
  std::ostringstream message;
  message << "[MnistLike] " << path.string() << ": ";
  (message << ... << parts);
  throw InvalidArgument(message.str());
}

void check_images(const TensorData& images, const fs::path& path) {
  const auto side = static_cast<int64_t>(kMnistImageSide);
  const Shape& shape = images.shape();
  if (images.dtype() != DType::U8 || shape.rank() != 3 || shape[1] != side || shape[2] != side) {
    fail(path, "images must be u8 [n, ", side, ", ", side, "], got ", images.dtype(), " ", shape);
  }
}

void check_labels(const TensorData& labels, std::size_t num_classes, const fs::path& path) {
  if (labels.dtype() != DType::U8 || labels.shape().rank() != 1) {
    fail(path, "labels must be u8 [n], got ", labels.dtype(), " ", labels.shape());
  }
  const std::span<const uint8_t> values = labels.as<uint8_t>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] >= num_classes) {
      fail(path, "label ", int{values[i]}, " at index ", i, " is not below num_classes ",
           num_classes);
    }
  }
}

/// dir/stem.gz when it exists, else dir/stem when it exists.
fs::path find_idx_file(const fs::path& dir, const std::string& stem) {
  for (const fs::path& candidate : {dir / (stem + ".gz"), dir / stem}) {
    std::error_code error;
    if (fs::exists(candidate, error)) return candidate;
  }
  fail(dir, "holds neither ", stem, ".gz nor ", stem);
}

}  // namespace

std::shared_ptr<const MnistLike> MnistLike::from_files(const fs::path& images,
                                                       const fs::path& labels,
                                                       std::size_t num_classes) {
  detail::check_positive(num_classes, "MnistLike", "num_classes");
  TensorData image_data = read_idx(images);
  check_images(image_data, images);
  TensorData label_data = read_idx(labels);
  check_labels(label_data, num_classes, labels);
  if (image_data.shape()[0] != label_data.shape()[0]) {
    fail(images, "holds ", image_data.shape()[0], " images but ", labels.string(), " holds ",
         label_data.shape()[0], " labels");
  }
  return std::shared_ptr<const MnistLike>(
      new MnistLike(std::move(image_data), std::move(label_data)));
}

std::shared_ptr<const MnistLike> MnistLike::from_dir(const fs::path& dir, MnistSplit split,
                                                     std::size_t num_classes) {
  const std::string prefix = split == MnistSplit::Train ? "train" : "t10k";
  const fs::path images = find_idx_file(dir, prefix + "-images-idx3-ubyte");
  const fs::path labels = find_idx_file(dir, prefix + "-labels-idx1-ubyte");
  return from_files(images, labels, num_classes);
}

MnistLike::MnistLike(TensorData images, TensorData labels)
    : images_(std::move(images)), labels_(std::move(labels)) {}

std::optional<MnistItem> MnistLike::get(std::size_t index) const {
  if (index >= len()) return std::nullopt;
  MnistItem item;
  std::memcpy(item.image.data(), images_.as<uint8_t>().data() + index * kMnistImagePixels,
              kMnistImagePixels);
  item.label = labels_.as<uint8_t>()[index];
  return item;
}

std::size_t MnistLike::len() const {
  return labels_.as<uint8_t>().size();
}

}  // namespace ember::data
