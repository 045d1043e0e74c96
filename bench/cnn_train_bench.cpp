// The ember side of the CNN training benchmark (bench/run_cnn_train.py runs it, alternating with
// bench/peer_torch/cnn_train.py): examples/fashion_mnist.h's Cnn, Adam (lr 2e-3), cross-entropy,
// on real Fashion-MNIST batches: the first (warmup + steps) * batch training images in file
// order, normalized by FashionMnistBatcher, all on the device before the clock starts.
//
//   cnn_train_bench [--device flex] [--batch 64] [--steps 200] [--warmup 20] [--lr 2e-3]
//                   [--data-dir DIR]
//
// Prints one JSON line: samples/s over the timed steps (synced, the last loss read back), and
// the process's memory in MiB: baseline (RSS after data and model), peak during training, and
// peak over the whole process. Threads: EMBER_NUM_THREADS.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "fashion_mnist.h"
#include "support/flags.h"
#include "support/process_memory.h"

namespace {

using namespace ember;
using bench::Flags;
using Clock = std::chrono::steady_clock;

/// count batches of the training set in file order (wrapping around at its end).
std::vector<data::MnistBatch> batches(const std::filesystem::path& dir, std::size_t batch,
                                      std::size_t count, const Device& device) {
  const auto train = data::FashionMnist::train(dir);
  const data::FashionMnistBatcher batcher;
  std::vector<data::MnistBatch> out;
  for (std::size_t b = 0; b < count; ++b) {
    std::vector<data::MnistItem> items;
    for (std::size_t i = 0; i < batch; ++i)
      items.push_back(*train->get((b * batch + i) % train->len()));
    out.push_back(batcher(items, device));
  }
  return out;
}

/// One Adam step per batch; returns the last loss (not read).
Tensor<1> train(fashion_mnist::Cnn& model, optim::Adam& optimizer, double lr,
                std::span<const data::MnistBatch> data) {
  Tensor<1> loss;
  for (const data::MnistBatch& batch : data) {
    loss = module::cross_entropy(model.forward(batch.images), batch.targets);
    const Gradients grads = loss.backward();
    optimizer.step(model, optim::GradientsParams::from(model, grads), lr);
  }
  return loss;
}

int run(const Flags& flags) {
  const std::string device_name = flags.text("device", "");
  const Device device =
      (device_name.empty() ? Device() : Device::from_name(device_name)).autodiff();
  const int64_t batch_flag = flags.integer("batch", 64);
  const int64_t steps_flag = flags.integer("steps", 200);
  const int64_t warmup_flag = flags.integer("warmup", 20);
  if (batch_flag < 1 || steps_flag < 1 || warmup_flag < 0)
    throw InvalidArgument(
        "[cnn_train_bench] needs --batch >= 1, --steps >= 1, --warmup >= 0; got " +
        std::to_string(batch_flag) + ", " + std::to_string(steps_flag) + ", " +
        std::to_string(warmup_flag));
  const auto batch = static_cast<std::size_t>(batch_flag);
  const auto steps = static_cast<std::size_t>(steps_flag);
  const auto warmup = static_cast<std::size_t>(warmup_flag);
  const double lr = flags.number("lr", 2e-3);

  device.seed(42);
  const std::vector<data::MnistBatch> data =
      batches(flags.text("data-dir", data::FashionMnist::default_dir().string()), batch,
              warmup + steps, device);
  fashion_mnist::Cnn model = fashion_mnist::Cnn::init(device);
  optim::Adam optimizer = optim::AdamConfig{}.init();
  const bench::ProcessMemory setup = bench::process_memory();
  bench::reset_peak_memory();

  const std::span<const data::MnistBatch> all(data);
  train(model, optimizer, lr, all.first(warmup));
  // The warm-up's work done first: a lazy or remote device may still hold it (and the batches'
  // uploads), which would otherwise land in the timed window.
  device.sync();
  const Clock::time_point start = Clock::now();
  const Tensor<1> loss = train(model, optimizer, lr, all.subspan(warmup));
  device.sync();
  const auto final_loss = loss.into_scalar<double>();  // reads the result: the work is done
  const std::chrono::duration<double> seconds = Clock::now() - start;

  const bench::ProcessMemory trained = bench::process_memory();
  std::printf(
      "{\"device\": \"%s\", \"samples_per_s\": %.6g, \"seconds\": %.6g, \"final_loss\": %.6g, "
      "\"baseline_mib\": "
      "%.6g, \"train_peak_mib\": %.6g, \"peak_mib\": %.6g}\n",
      device.name().c_str(), static_cast<double>(steps * batch) / seconds.count(), seconds.count(),
      final_loss, setup.rss_mib, trained.peak_mib, std::max(setup.peak_mib, trained.peak_mib));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(Flags(argc, argv, {"device", "batch", "steps", "warmup", "lr", "data-dir"}));
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "cnn_train_bench: %s\n", e.what());
    return 2;
  }
}
