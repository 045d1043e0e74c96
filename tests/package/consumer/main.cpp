// A program outside the repository using ember through its installed CMake package, spelled
// exactly as DESIGN.md §2. Exits non-zero when a value is wrong.
#include <cstdlib>
#include <iostream>

#include <ember/ember.h>

namespace {
int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}
}  // namespace

int main() {
  using namespace ember;
  Device device;  // the default device (ndarray in this build)
  Device ad = device.autodiff();
  expect(ad.is_autodiff() && ad == device, "autodiff device equals its inner device");
  expect(device.settings().float_dtype == FloatDType::F32, "default float dtype is f32");

  auto x = Tensor<1>::from_floats({1.0, 2.0, 3.0}, device);
  // (1*2+1) + (2*2+1) + (3*2+1) = 15
  const float total = (x * 2.0 + 1.0).sum().into_scalar<float>();
  expect(total == 15.0f, "sum of 2x+1 over [1, 2, 3] is 15");

  auto ints = Tensor<2, Int>::zeros({2, 3}, device);
  expect(ints.dtype() == DType::I64, "Int tensors default to i64");

  auto a = Tensor<2>::from_data(TensorData(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}), device);
  // [[1, 2], [3, 4]] @ [[1, 2], [3, 4]] = [[7, 10], [15, 22]]
  auto product = a.matmul(a).into_data().to_vector<float>();
  expect(product == std::vector<float>({7, 10, 15, 22}), "2x2 matmul");

  auto [sum, duration] = device.profile([&] { return a.sum().into_scalar<double>(); });
  expect(sum == 10.0, "profile returns the closure's value");
  expect(duration.resolve().has_value(), "a window with work resolves to a duration");

  std::cout << device << ": " << x << "\n";
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
