// Regression: an MLP learns y = sin(2 x0) + x1 x2 + x3² / 2 + noise (an in-memory dataset, a
// DataLoader, AdamW, a cosine learning-rate schedule, the MSE loss). Prints the train and
// validation MSE of each epoch, then the test MSE next to that of always predicting the training
// mean. Usage: example_regression [epochs] (device: $EMBER_DEVICE or the default).
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "ember/data/data.h"
#include "ember/ember.h"
#include "ember/nn/layers.h"
#include "ember/optim/optim.h"

namespace {

using namespace ember;

constexpr int64_t kInputs = 4;
constexpr std::size_t kColumns = kInputs + 1;
using Row = std::array<float, kColumns>;  // one sample: the inputs x0..x3, then the target y

/// n rows with x uniform in [-2, 2)^4 and noise N(0, 0.1²) (so no model gets a test MSE much
/// below 0.01), drawn by the device's seeded RNG: the same numbers on every backend.
std::vector<Row> make_rows(int64_t n, const Device& device) {
  const Tensor<2> x = Tensor<2>::random({n, kInputs}, Distribution::uniform(-2, 2), device);
  const auto column = [&](int64_t i) { return x.narrow(1, i, 1); };
  const Tensor<2> y = (column(0) * 2.0).sin() + column(1) * column(2) +
                      column(3).powi_scalar(2) * 0.5 +
                      Tensor<2>::random({n, 1}, Distribution::normal(0, 0.1), device);
  const std::vector<float> values = Tensor<2>::cat({x, y}, 1).into_data().to_vector<float>();
  std::vector<Row> rows(values.size() / kColumns);
  for (std::size_t i = 0; i < values.size(); ++i)
    rows[i / kColumns][i % kColumns] = values[i];
  return rows;
}

struct Batch {
  Tensor<2> inputs;   ///< [B, 4]
  Tensor<2> targets;  ///< [B, 1]
  double rows() const { return static_cast<double>(targets.dims()[0]); }
};

/// The DataLoader's batcher: stacks the rows into one tensor and splits off the targets.
Batch make_batch(const std::vector<Row>& rows, const Device& device) {
  std::vector<float> values;
  for (const Row& row : rows)
    values.insert(values.end(), row.begin(), row.end());
  const auto n = static_cast<int64_t>(rows.size());
  const Tensor<2> all = Tensor<2>::from_data(TensorData(values, Shape{n, kInputs + 1}), device);
  return {all.narrow(1, 0, kInputs), all.narrow(1, kInputs, 1)};
}

using Loader = data::DataLoader<Row, Batch>;

Loader loader(std::vector<Row> rows, const Device& device, std::optional<uint64_t> shuffle) {
  return Loader(data::in_memory(std::move(rows)), make_batch,
                {.batch_size = 64, .shuffle = shuffle, .device = device});
}

/// 4 → 64 → 64 → 1 with SiLU activations.
struct Mlp {
  nn::Linear fc1, fc2, out;
  EMBER_MODULE(fc1, fc2, out)

  static Mlp init(const Device& device) {
    return {nn::LinearConfig{kInputs, 64}.init(device), nn::LinearConfig{64, 64}.init(device),
            nn::LinearConfig{64, 1}.init(device)};
  }
  Tensor<2> forward(const Tensor<2>& x) const {
    return out.forward(activation::silu(fc2.forward(activation::silu(fc1.forward(x)))));
  }
  Tensor<2> mse(const Batch& batch) const {
    return module::mse_loss(forward(batch.inputs), batch.targets);
  }
};

// Epoch MSEs: each batch's MSE weighted by its size (the last batch may be smaller).

/// One epoch of updates; returns its training MSE.
double train_epoch(Mlp& model, Loader& loader, optim::Optimizer& optimizer,
                   optim::LrScheduler& schedule) {
  double sum = 0;
  for (Batch& batch : loader.epoch()) {
    const Tensor<2> loss = model.mse(batch);
    optimizer.step(model, optim::GradientsParams::from(model, loss.backward()), schedule.lr());
    schedule.step();
    sum += loss.into_scalar<double>() * batch.rows();
  }
  return sum / static_cast<double>(loader.num_items());
}

double evaluate(const Mlp& model, Loader& loader) {
  const NoGradGuard no_grad;
  double sum = 0;
  for (Batch& batch : loader.epoch())
    sum += model.mse(batch).into_scalar<double>() * batch.rows();
  return sum / static_cast<double>(loader.num_items());
}

/// The test MSE of the constant prediction "the mean of the training targets".
double mean_baseline_mse(const std::vector<Row>& train, const std::vector<Row>& test) {
  double mean = 0, sum = 0;
  for (const Row& row : train)
    mean += row[kInputs] / static_cast<double>(train.size());
  for (const Row& row : test)
    sum += (row[kInputs] - mean) * (row[kInputs] - mean);
  return sum / static_cast<double>(test.size());
}

void run(int64_t epochs) {
  const Device device = Device::default_device().autodiff();
  device.seed(42);
  const std::vector<Row> train = make_rows(4096, device), test = make_rows(512, device);
  Loader train_loader = loader(train, device, /*shuffle=*/7);
  Loader valid_loader = loader(make_rows(512, device), device, std::nullopt);
  Loader test_loader = loader(test, device, std::nullopt);
  Mlp model = Mlp::init(device);
  optim::AdamW optimizer = optim::AdamWConfig{.weight_decay = 1e-4}.init();
  const int64_t steps = epochs * static_cast<int64_t>(train_loader.num_batches());
  optim::CosineAnnealingLr schedule =
      optim::CosineAnnealingLrConfig{.initial_lr = 3e-3, .t_max = steps}.init();
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const double train_mse = train_epoch(model, train_loader, optimizer, schedule);
    std::printf("epoch %3lld/%lld  train mse %.4f  valid mse %.4f\n", static_cast<long long>(epoch),
                static_cast<long long>(epochs), train_mse, evaluate(model, valid_loader));
  }
  std::printf("baseline mse: %.4f (always predicting the training mean)\n",
              mean_baseline_mse(train, test));
  std::printf("test mse: %.4f\n", evaluate(model, test_loader));
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t epochs = argc > 1 ? std::atoll(argv[1]) : 20;
  try {
    if (epochs < 1)
      throw ember::InvalidArgument("[regression] epochs must be a positive integer, got '" +
                                   std::string(argv[1]) + "'");
    run(epochs);
  } catch (const ember::Error& e) {
    std::cerr << "regression: " << e.what() << '\n';
    return 1;
  }
}
