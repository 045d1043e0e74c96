// MnistLike on small MNIST-format files written by the test, and MnistBatcher.
#include "ember/data/mnist.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "data_test_util.h"
#include "ember/data/dataloader.h"
#include "ember/data/in_memory_dataset.h"

namespace ember::data {
namespace {

using test::Bytes;
using test::idx_bytes;
using test::invalid_argument_message;

constexpr uint32_t kSide = 28;
constexpr std::size_t kPixels = kSide * kSide;

/// Pixel j of image i in the test files.
uint8_t pixel(std::size_t i, std::size_t j) {
  return static_cast<uint8_t>((i * kPixels + j) % 251);
}

Bytes image_file(uint32_t n, uint32_t rows = kSide) {
  Bytes payload(n * rows * kSide);
  for (std::size_t k = 0; k < payload.size(); ++k)
    payload[k] = pixel(k / kPixels, k % kPixels);
  return idx_bytes(0x08, {n, rows, kSide}, payload);
}

Bytes label_file(const Bytes& labels) {
  return idx_bytes(0x08, {static_cast<uint32_t>(labels.size())}, labels);
}

/// A directory holding a 3-item train split (gzip) and a 2-item test split (plain).
struct MnistDir {
  test::TempDir dir;
  MnistDir() {
    test::write_gzip(dir / "train-images-idx3-ubyte.gz", image_file(3));
    test::write_gzip(dir / "train-labels-idx1-ubyte.gz", label_file({9, 0, 4}));
    test::write_plain(dir / "t10k-images-idx3-ubyte", image_file(2));
    test::write_plain(dir / "t10k-labels-idx1-ubyte", label_file({1, 2}));
  }
};

TEST(MnistLike, ReadsASplitFromADirectory) {
  const MnistDir files;
  const auto train = MnistLike::from_dir(files.dir.path(), MnistSplit::Train);
  ASSERT_EQ(train->len(), 3u);
  const std::vector<uint8_t> labels = {9, 0, 4};
  for (std::size_t i = 0; i < 3; ++i) {
    const MnistItem item = train->get(i).value();
    EXPECT_EQ(item.label, labels[i]);
    for (std::size_t j = 0; j < kPixels; ++j)
      ASSERT_EQ(item.image[j], pixel(i, j)) << i << " " << j;
  }
  EXPECT_EQ(train->get(3), std::nullopt);
  const auto test = MnistLike::from_dir(files.dir.path(), MnistSplit::Test);
  EXPECT_EQ(test->len(), 2u);
  EXPECT_EQ(test->get(1).value().label, 2);
}

TEST(MnistLike, NamesAMissingFile) {
  const test::TempDir dir;
  EXPECT_EQ(invalid_argument_message([&] { MnistLike::from_dir(dir.path(), MnistSplit::Test); }),
            "[MnistLike] " + dir.path().string() +
                ": holds neither t10k-images-idx3-ubyte.gz nor t10k-images-idx3-ubyte");
}

TEST(MnistLike, RefusesFilesOfTheWrongShapeOrType) {
  const test::TempDir dir;
  const auto images = test::write_plain(dir / "images", image_file(2));
  const auto labels = test::write_plain(dir / "labels", label_file({1, 2}));
  const auto narrow = test::write_plain(dir / "narrow", image_file(2, 27));
  EXPECT_EQ(
      invalid_argument_message([&] { MnistLike::from_files(narrow, labels); }),
      "[MnistLike] " + narrow.string() + ": images must be u8 [n, 28, 28], got u8 [2, 27, 28]");
  const auto signed_labels = test::write_plain(dir / "signed", idx_bytes(0x09, {2}, {1, 2}));
  EXPECT_EQ(invalid_argument_message([&] { MnistLike::from_files(images, signed_labels); }),
            "[MnistLike] " + signed_labels.string() + ": labels must be u8 [n], got i8 [2]");
  const auto three = test::write_plain(dir / "three", label_file({1, 2, 3}));
  EXPECT_EQ(invalid_argument_message([&] { MnistLike::from_files(images, three); }),
            "[MnistLike] " + images.string() + ": holds 2 images but " + three.string() +
                " holds 3 labels");
  const auto big = test::write_plain(dir / "big", label_file({1, 10}));
  EXPECT_EQ(invalid_argument_message([&] { MnistLike::from_files(images, big); }),
            "[MnistLike] " + big.string() + ": label 10 at index 1 is not below num_classes 10");
  EXPECT_EQ(MnistLike::from_files(images, big, 11)->get(1).value().label, 10);
}

TEST(MnistLike, PassesOnReadIdxErrors) {
  const test::TempDir dir;
  const auto labels = test::write_plain(dir / "labels", label_file({1}));
  const std::string message =
      invalid_argument_message([&] { MnistLike::from_files(dir / "absent", labels); });
  EXPECT_EQ(message, "[read_idx] " + (dir / "absent").string() + ": cannot open: no such file");
}

MnistItem item_with(uint8_t value, uint8_t label) {
  MnistItem item;
  item.image.fill(value);
  item.label = label;
  return item;
}

TEST(MnistBatcher, NormalizesPixelsAndStacksLabels) {
  const Device device = Device::ndarray();
  const MnistBatch batch =
      MnistBatcher(0.2860, 0.3530)({item_with(0, 3), item_with(255, 7), item_with(51, 0)}, device);
  EXPECT_EQ(batch.images.dims(), (std::array<int64_t, 4>{3, 1, 28, 28}));
  EXPECT_EQ(batch.images.dtype(), to_dtype(device.settings().float_dtype));
  EXPECT_EQ(batch.targets.dtype(), to_dtype(device.settings().int_dtype));
  EXPECT_EQ(batch.targets.into_data().to_vector<int64_t>(), (std::vector<int64_t>{3, 7, 0}));
  // (0 - 0.286) / 0.353, (1 - 0.286) / 0.353 and (0.2 - 0.286) / 0.353, by hand.
  const std::vector<double> values = batch.images.into_data().to_vector<double>();
  const std::vector<double> expected = {-0.81019830, 2.02266289, -0.24362606};
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < kPixels; ++j) {
      ASSERT_NEAR(values[i * kPixels + j], expected[i], 1e-6) << i << " " << j;
    }
  }
}

TEST(MnistBatcher, RefusesABadStandardDeviation) {
  EXPECT_EQ(invalid_argument_message([] { MnistBatcher(0, 0); }),
            "[MnistBatcher] mean 0 and stddev 0 must be finite, with stddev > 0");
  EXPECT_EQ(invalid_argument_message([] { MnistBatcher(NAN, 1); }),
            "[MnistBatcher] mean nan and stddev 1 must be finite, with stddev > 0");
}

TEST(MnistBatcher, WorkersBuildTheSameTensors) {
  std::vector<MnistItem> items;
  for (uint8_t i = 0; i < 10; ++i)
    items.push_back(item_with(static_cast<uint8_t>(i * 25), i));
  const DataLoaderOptions options{.batch_size = 3, .shuffle = 1, .device = Device::ndarray()};
  DataLoaderOptions threaded = options;
  threaded.num_workers = 2;
  DataLoader inline_loader(in_memory(items), MnistBatcher(0.5, 0.25), options);
  DataLoader threaded_loader(in_memory(items), MnistBatcher(0.5, 0.25), threaded);
  std::vector<TensorData> inline_images;
  for (MnistBatch& b : inline_loader.epoch())
    inline_images.push_back(b.images.into_data());
  std::vector<TensorData> threaded_images;
  for (MnistBatch& b : threaded_loader.epoch())
    threaded_images.push_back(b.images.into_data());
  EXPECT_EQ(threaded_images, inline_images);
  EXPECT_EQ(threaded_images.size(), 4u);
}

}  // namespace
}  // namespace ember::data
