// Helpers for the autodiff tests: tensors on the autodiff ndarray device, leaves, and gradients
// read back as vectors. Builds on the Tensor API test helpers (values, EXPECT_INVALID).
#pragma once

#include <gtest/gtest.h>
#include <pthread.h>

#include <optional>
#include <vector>

#include "../tensor/tensor_test_util.h"
#include "ember/ember.h"

namespace ember::test {

inline Device autodiff_device() {
  return Device::ndarray().autodiff();
}

/// A constant f32 tensor on the autodiff device.
template <std::size_t D>
Tensor<D> constant(const std::vector<float>& values, Shape shape) {
  return Tensor<D>::from_data(TensorData(values, std::move(shape)), autodiff_device());
}

/// An f32 leaf that requires grad.
template <std::size_t D>
Tensor<D> leaf(const std::vector<float>& values, Shape shape) {
  return constant<D>(values, std::move(shape)).require_grad();
}

/// The values of x's gradient in grads; fails the test when there is none.
template <std::size_t D>
std::vector<float> grad_of(const Tensor<D>& x, const Gradients& grads) {
  const std::optional<Tensor<D>> grad = x.grad(grads);
  if (!grad) {
    ADD_FAILURE() << "no gradient reached the tensor";
    return {};
  }
  EXPECT_EQ(grad->handle().shape(), x.handle().shape());
  return values<float>(*grad);
}

inline bool is_tracked(const TensorHandle& x) {
  return ops::is_tracked(x);
}
template <std::size_t D, typename K>
bool is_tracked(const Tensor<D, K>& x) {
  return ops::is_tracked(x.handle());
}

/// Runs f on a thread with a 256 KiB stack, which recursion over the deep graphs of the tests
/// (thousands of nodes) would overflow: a crash there means some graph walk is recursive.
template <typename F>
void on_small_stack(F f) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  pthread_t thread;
  const auto run = [](void* arg) -> void* {
    (*static_cast<F*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, &f), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

}  // namespace ember::test
