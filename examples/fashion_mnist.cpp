// Trains a small CNN on Fashion-MNIST (Debian's dataset-fashion-mnist) and prints its test
// accuracy. Usage: example_fashion_mnist [epochs] (device: $EMBER_DEVICE or the default).
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "fashion_mnist.h"

int main(int argc, char** argv) {
  fashion_mnist::Options options;
  if (argc > 1) options.epochs = std::atoi(argv[1]);
  try {
    std::printf("test accuracy: %.4f\n", fashion_mnist::run(options));
  } catch (const ember::Error& e) {
    std::cerr << "fashion_mnist: " << e.what() << '\n';
    return 1;
  }
}
