// FashionMnist on the real dataset (Debian's dataset-fashion-mnist), checked against the files
// read independently with zlib and against the dataset's published facts.
#include "ember/data/fashion_mnist.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "data_test_util.h"

namespace ember::data {
namespace {

namespace fs = std::filesystem;

/// The first `count` bytes after `skip` bytes of a gzip file, read with zlib directly.
std::vector<uint8_t> gz_bytes(const fs::path& path, std::size_t skip, std::size_t count) {
  std::vector<uint8_t> bytes(skip + count);
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr) << path;
  if (file == nullptr) return {};
  EXPECT_EQ(gzread(file, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(file);
  return {bytes.begin() + static_cast<std::ptrdiff_t>(skip), bytes.end()};
}

class FashionMnistFiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (fs::is_directory(FashionMnist::default_dir())) train_ = FashionMnist::train();
  }
  static void TearDownTestSuite() { train_.reset(); }
  void SetUp() override {
    if (!train_) {
      GTEST_SKIP() << "Fashion-MNIST not found in " << FashionMnist::default_dir()
                   << " (install Debian's dataset-fashion-mnist or set EMBER_FASHION_MNIST_DIR)";
    }
  }
  static fs::path file(const std::string& name) { return FashionMnist::default_dir() / name; }

  static inline std::shared_ptr<const MnistLike> train_;
};

TEST_F(FashionMnistFiles, HasTheDocumentedSizes) {
  EXPECT_EQ(train_->len(), 60000u);
  EXPECT_EQ(FashionMnist::test()->len(), 10000u);
}

TEST_F(FashionMnistFiles, ItemsMatchTheFilesReadWithZlib) {
  // IDX headers: 16 bytes for the images (magic + 3 dims), 8 for the labels (magic + 1 dim).
  for (std::size_t index : {0u, 1u, 59999u}) {
    const MnistItem item = train_->get(index).value();
    const std::vector<uint8_t> image =
        gz_bytes(file("train-images-idx3-ubyte.gz"), 16 + index * 784, 784);
    EXPECT_EQ(std::vector<uint8_t>(item.image.begin(), item.image.end()), image) << index;
    EXPECT_EQ(item.label, gz_bytes(file("train-labels-idx1-ubyte.gz"), 8 + index, 1).at(0));
  }
  // The first training image is an ankle boot, a dark background around the object.
  EXPECT_EQ(train_->get(0).value().label, 9);
  EXPECT_EQ(FashionMnist::kClassNames[9], "Ankle boot");
  EXPECT_EQ(train_->get(0).value().image[0], 0);
}

TEST_F(FashionMnistFiles, EveryClassHas6000TrainAnd1000TestItems) {
  std::array<int, 10> train_counts{};
  for (std::size_t i = 0; i < train_->len(); ++i)
    ++train_counts.at(train_->get(i)->label);
  std::array<int, 10> test_counts{};
  const auto test = FashionMnist::test();
  for (std::size_t i = 0; i < test->len(); ++i)
    ++test_counts.at(test->get(i)->label);
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(train_counts[c], 6000) << FashionMnist::kClassNames[c];
    EXPECT_EQ(test_counts[c], 1000) << FashionMnist::kClassNames[c];
  }
}

TEST_F(FashionMnistFiles, MeanAndStdAreTheTrainingSetsOwn) {
  double sum = 0;
  double sum_sq = 0;
  for (std::size_t i = 0; i < train_->len(); ++i) {
    const MnistItem item = train_->get(i).value();
    for (uint8_t p : item.image) {
      const double x = p / 255.0;
      sum += x;
      sum_sq += x * x;
    }
  }
  const double n = static_cast<double>(train_->len()) * 784;
  const double mean = sum / n;
  EXPECT_NEAR(mean, FashionMnist::kMean, 5e-4);
  EXPECT_NEAR(std::sqrt(sum_sq / n - mean * mean), FashionMnist::kStd, 5e-4);
}

TEST(FashionMnist, DefaultDirFollowsTheEnvironment) {
  const char* saved = std::getenv("EMBER_FASHION_MNIST_DIR");
  const std::string saved_value = saved ? saved : "";
  setenv("EMBER_FASHION_MNIST_DIR", "/data/fmnist", 1);
  EXPECT_EQ(FashionMnist::default_dir(), fs::path("/data/fmnist"));
  setenv("EMBER_FASHION_MNIST_DIR", "", 1);
  EXPECT_EQ(FashionMnist::default_dir(), fs::path("/usr/share/datasets/fashion-mnist"));
  unsetenv("EMBER_FASHION_MNIST_DIR");
  EXPECT_EQ(FashionMnist::default_dir(), fs::path("/usr/share/datasets/fashion-mnist"));
  if (saved) setenv("EMBER_FASHION_MNIST_DIR", saved_value.c_str(), 1);
}

TEST(FashionMnist, AMissingDirectorySaysHowToGetTheData) {
  const test::TempDir dir;
  const fs::path absent = dir / "absent";
  EXPECT_EQ(test::invalid_argument_message([&] { FashionMnist::train(absent); }),
            "[FashionMnist] " + absent.string() +
                " is not a directory (install Debian's dataset-fashion-mnist, or set "
                "EMBER_FASHION_MNIST_DIR to a directory holding the IDX files)");
}

TEST(FashionMnistBatcher, UsesFashionMnistsMeanAndStd) {
  const FashionMnistBatcher batcher;
  EXPECT_EQ(batcher.mean(), 0.2860);
  EXPECT_EQ(batcher.stddev(), 0.3530);
}

}  // namespace
}  // namespace ember::data
