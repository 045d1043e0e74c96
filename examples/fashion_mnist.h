// Fashion-MNIST with a small CNN: the model, the data pipeline, the training run and the test
// evaluation, on whatever device it is given. examples/fashion_mnist.cpp runs it; so does
// `ember train fashion-mnist`. Copy these two files to start a project of your own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "ember/collective.h"
#include "ember/data/dataloader.h"
#include "ember/data/fashion_mnist.h"
#include "ember/data/partial_dataset.h"
#include "ember/data/shuffled_dataset.h"
#include "ember/ember.h"
#include "ember/nn/layers.h"
#include "ember/optim/optim.h"
#include "ember/record/module_record.h"
#include "ember/train/learner.h"

namespace fashion_mnist {

using namespace ember;

/// conv(1→16, 3x3) relu maxpool(2) conv(16→32, 3x3) relu maxpool(2) linear(1568→128) relu
/// dropout linear(128→10): about 0.91 test accuracy after a few epochs.
struct Cnn {
  nn::Conv2d conv1, conv2;
  nn::Linear fc1, fc2;
  nn::Dropout dropout;
  EMBER_MODULE(conv1, conv2, fc1, fc2, dropout)

  static Cnn init(const Device& device) {
    return {
        nn::Conv2dConfig{.in_channels = 1, .out_channels = 16, .kernel_size = {3}, .padding = {1}}
            .init(device),
        nn::Conv2dConfig{.in_channels = 16, .out_channels = 32, .kernel_size = {3}, .padding = {1}}
            .init(device),
        nn::LinearConfig{32 * 7 * 7, 128}.init(device), nn::LinearConfig{128, 10}.init(device),
        nn::DropoutConfig{.p = 0.25}.init(device)};
  }

  /// images [B, 1, 28, 28] → logits [B, 10].
  Tensor<2> forward(const Tensor<4>& images) const {
    const module::MaxPoolOptions pool{.kernel_size = {2}};
    Tensor<4> h = module::max_pool2d(activation::relu(conv1.forward(images)), pool);
    h = module::max_pool2d(activation::relu(conv2.forward(h)), pool);
    const Tensor<2> flat = h.reshape<2>({h.dims()[0], 32 * 7 * 7});
    return fc2.forward(dropout.forward(activation::relu(fc1.forward(flat))));
  }
};

inline train::ClassificationOutput step(const Cnn& model, const data::MnistBatch& batch) {
  const Tensor<2> logits = model.forward(batch.images);
  return {module::cross_entropy(logits, batch.targets), logits, batch.targets};
}

struct Options {
  /// Unset: the default device (resolved when used, so building Options never throws).
  std::optional<Device> device = std::nullopt;
  /// Data-parallel training (docs/data_parallel.md) over these devices of this process, one
  /// replica each, and over the processes the launcher's variables name (RANK, WORLD_SIZE,
  /// MASTER_ADDR, MASTER_PORT); batch_size is then the whole step's. Empty: device alone.
  std::vector<Device> devices = {};
  /// devices.front() when training data-parallel (where the model ends up), else device.
  Device resolved_device() const {
    return devices.empty() ? device.value_or(Device::default_device()) : devices.front();
  }
  /// Mixed precision: unset trains in f32; BF16 or F16 trains on resolved_device().autocast(...)
  /// (parameters stay f32), F16 with loss scaling.
  std::optional<FloatDType> autocast = std::nullopt;
  /// The device the data and the model live on: resolved_device(), autocast as asked.
  Device compute_device() const {
    const Device d = resolved_device();
    return autocast ? d.autocast(*autocast) : d;
  }
  /// devices, autocast as asked.
  std::vector<Device> compute_devices() const {
    std::vector<Device> all;
    for (const Device& d : devices)
      all.push_back(autocast ? d.autocast(*autocast) : d);
    return all;
  }
  int64_t epochs = 3;
  std::size_t batch_size = 64;
  double learning_rate = 2e-3;
  std::filesystem::path out = "runs/fashion-mnist";
  bool resume = false;
};

using Loader = data::DataLoader<data::MnistItem, data::MnistBatch>;

inline Loader loader(data::DatasetPtr<data::MnistItem> items, const Options& o, bool shuffle) {
  return Loader(std::move(items), data::FashionMnistBatcher{},
                {.batch_size = o.batch_size,
                 .shuffle = shuffle ? std::optional<uint64_t>(7) : std::nullopt,
                 .num_workers = 1,
                 .device = o.compute_device()});
}

/// The accuracy of model on the test set.
inline double evaluate(Cnn& model, const Options& o) {
  nn::eval(model);
  const NoGradGuard no_grad;
  Loader test = loader(data::FashionMnist::test(), o, false);
  train::EpochMetrics metrics;
  for (data::MnistBatch& batch : test.epoch())
    metrics.update(step(model, batch));
  return metrics.accuracy();
}

/// Trains on 55000 training images (5000 held out to pick the best epoch), saves the best model
/// as <out>/model.safetensors and returns its test accuracy.
inline double run(const Options& o) {
  const Device device = o.compute_device().autodiff();
  device.seed(42);
  Cnn model = Cnn::init(device);
  auto [train_items, valid_items] = data::split(
      data::shuffled(data::DatasetPtr<data::MnistItem>(data::FashionMnist::train()), 1), 55000);
  Loader train_loader = loader(train_items, o, true);
  Loader valid_loader = loader(valid_items, o, false);
  optim::Adam optimizer = optim::AdamConfig{}.init();
  const int64_t steps = o.epochs * static_cast<int64_t>(train_loader.num_batches());
  optim::CosineAnnealingLr schedule =
      optim::CosineAnnealingLrConfig{.initial_lr = o.learning_rate, .t_max = steps}.init();
  // f16's range needs the loss scaled (optim/grad_scaler.h); bf16 has f32's.
  train::Learner learner({.epochs = o.epochs,
                          .directory = o.out,
                          .resume = o.resume,
                          .grad_scaler = {.enabled = o.autocast == FloatDType::F16},
                          .devices = o.compute_devices()},
                         model, optimizer, schedule);
  const train::FitResult result = learner.fit(train_loader, valid_loader, step);
  // Data-parallel: process 0 wrote the checkpoints; the others end with the same last model.
  if (!o.devices.empty() && collective::ProcessInfo::from_environment().rank != 0)
    return evaluate(model, o);
  record::load(model, o.out / "checkpoints" / "best" / "model.safetensors");
  record::save(model, o.out / "model.safetensors");
  std::cout << "best epoch " << result.best_epoch.value_or(0) << ", model saved to "
            << (o.out / "model.safetensors").string() << '\n';
  return evaluate(model, o);
}

}  // namespace fashion_mnist
