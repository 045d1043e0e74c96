// Gradient checkpointing benchmark: the 16-layer MLP of mlp_model.h (width 256, batch 64, f32) on
// the default device, with checkpointing Disabled and Balanced. A step is forward + backward;
// prints the bytes the graph keeps after forward, the median step time over 10 steps after 2
// warm-ups, and the ratios Balanced / Disabled.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "ember/ember.h"
#include "mlp_model.h"
#include "support/median.h"

namespace {

using ember::Device;
using Clock = std::chrono::steady_clock;

constexpr int kWarmups = 2;
constexpr int kSteps = 10;

struct Measurement {
  uint64_t retained_bytes;
  double step_ms;
};

/// One forward + backward; returns the bytes retained after forward and the step's time.
Measurement step(const ember::bench::Mlp& mlp, const Device& device) {
  const uint64_t before = ember::autodiff::retained_bytes(device);
  const Clock::time_point start = Clock::now();
  const ember::Tensor<1> loss = ember::bench::forward_loss(mlp);
  const uint64_t retained = ember::autodiff::retained_bytes(device) - before;
  const ember::Gradients grads = loss.backward();
  device.sync();
  const std::chrono::duration<double, std::milli> elapsed = Clock::now() - start;
  return {retained, elapsed.count()};
}

Measurement measure(const Device& device) {
  const ember::bench::Mlp mlp = ember::bench::make_mlp(ember::bench::MlpSize{}, device, 1);
  for (int i = 0; i < kWarmups; ++i)
    step(mlp, device);
  std::vector<double> times;
  uint64_t retained = 0;
  for (int i = 0; i < kSteps; ++i) {
    const Measurement m = step(mlp, device);
    times.push_back(m.step_ms);
    retained = m.retained_bytes;  // the same every step: one model, one graph shape
  }
  return {retained, ember::bench::median(times)};
}

}  // namespace

int main() {
  const Device disabled = Device().autodiff();
  const Device balanced = disabled.gradient_checkpointing();
  const ember::bench::MlpSize size;
  std::printf("device %s, MLP %lld layers x width %lld, batch %lld, f32; median of %d steps\n\n",
              disabled.name().c_str(), static_cast<long long>(size.layers),
              static_cast<long long>(size.width), static_cast<long long>(size.batch), kSteps);
  const Measurement off = measure(disabled);
  const Measurement on = measure(balanced);
  std::printf("| strategy | retained bytes after forward | step time (ms) |\n");
  std::printf("|---|---:|---:|\n");
  std::printf("| Disabled | %llu | %.2f |\n", static_cast<unsigned long long>(off.retained_bytes),
              off.step_ms);
  std::printf("| Balanced | %llu | %.2f |\n", static_cast<unsigned long long>(on.retained_bytes),
              on.step_ms);
  std::printf("| Balanced / Disabled | %.3f | %.3f |\n",
              static_cast<double>(on.retained_bytes) / static_cast<double>(off.retained_bytes),
              on.step_ms / off.step_ms);
  return 0;
}
