// FashionMnist (fashion_mnist.h): where the dataset lives, and its splits.
#include "ember/data/fashion_mnist.h"

#include <cstdlib>
#include <sstream>

#include "ember/error.h"

namespace ember::data {
namespace {

namespace fs = std::filesystem;

/// Reads a split, first checking the directory so that a missing dataset says how to get it.
std::shared_ptr<const MnistLike> load(const fs::path& dir, MnistSplit split) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    std::ostringstream message;
    message << "[FashionMnist] " << dir.string()
            << " is not a directory (install Debian's dataset-fashion-mnist, or set "
               "EMBER_FASHION_MNIST_DIR to a directory holding the IDX files)";
    throw InvalidArgument(message.str());
  }
  return MnistLike::from_dir(dir, split);
}

}  // namespace

fs::path FashionMnist::default_dir() {
  const char* dir = std::getenv("EMBER_FASHION_MNIST_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return "/usr/share/datasets/fashion-mnist";
}

std::shared_ptr<const MnistLike> FashionMnist::train(const fs::path& dir) {
  return load(dir, MnistSplit::Train);
}

std::shared_ptr<const MnistLike> FashionMnist::test(const fs::path& dir) {
  return load(dir, MnistSplit::Test);
}

}  // namespace ember::data
