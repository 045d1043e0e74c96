// One small training run (a two-layer classifier, Adam, a fixed dataset) through the Learner,
// shared by the data-parallel suites: on one device (devices empty) or data-parallel over
// devices, in this process or as one process of a run the environment names. The result is the
// trained parameters, which those suites compare across runs.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <vector>

#include "ember/data/dataloader.h"
#include "ember/data/in_memory_dataset.h"
#include "ember/ember.h"
#include "ember/nn/linear.h"
#include "ember/optim/adam.h"
#include "ember/optim/scheduler.h"
#include "ember/train/learner.h"

namespace ember::test::data_parallel_run {

struct Sample {
  std::vector<float> x;  // 4 features
  int64_t label;
};
struct Batch {
  Tensor<2> x;
  Tensor<1, Int> labels;
};

inline Batch make_batch(const std::vector<Sample>& samples, const Device& device) {
  std::vector<float> x;
  std::vector<int64_t> labels;
  for (const Sample& s : samples) {
    x.insert(x.end(), s.x.begin(), s.x.end());
    labels.push_back(s.label);
  }
  const auto n = static_cast<int64_t>(samples.size());
  return {Tensor<2>::from_data(TensorData(x, Shape{n, 4}), device),
          Tensor<1, Int>::from_ints(labels, device)};
}

/// 30 samples of 3 classes, from closed forms (no random numbers).
inline data::DatasetPtr<Sample> samples() {
  std::vector<Sample> all;
  for (int i = 0; i < 30; ++i) {
    const auto t = static_cast<float>(i);
    const int64_t label = i % 3;
    all.push_back({{std::sin(t) + static_cast<float>(label), std::cos(0.7F * t), 0.1F * t - 1.5F,
                    static_cast<float>(label) - std::sin(1.3F * t)},
                   label});
  }
  return data::in_memory(std::move(all));
}

struct Mlp {
  nn::Linear fc1, fc2;
  EMBER_MODULE(fc1, fc2)
};

inline train::ClassificationOutput forward(const Mlp& model, const Batch& batch) {
  const Tensor<2> logits = model.fc2.forward(activation::relu(model.fc1.forward(batch.x)));
  return {module::cross_entropy(logits, batch.labels), logits, batch.labels};
}

/// Every parameter of model, in member order, as doubles.
inline std::vector<double> parameters_of(const Mlp& model) {
  std::vector<double> values;
  for (const nn::NamedTensor& p : nn::named_parameters(model)) {
    const std::vector<double> v = ops::into_data(p.tensor).to_vector<double>();
    values.insert(values.end(), v.begin(), v.end());
  }
  return values;
}

/// Two epochs of batches of 12 (shuffled) on device (the model's, and the loaders'), data-parallel
/// over devices when given, files under directory; the trained parameters.
inline std::vector<double> train(const Device& device, std::vector<Device> devices,
                                 const std::filesystem::path& directory,
                                 std::size_t bucket_bytes = 64) {
  const Device autodiff = device.autodiff();
  autodiff.seed(3);
  Mlp model{nn::LinearConfig{4, 8}.init(autodiff), nn::LinearConfig{8, 3}.init(autodiff)};
  optim::Adam optimizer = optim::AdamConfig{}.init();
  optim::ConstantLr scheduler = optim::ConstantLrConfig{0.05}.init();
  std::ostringstream console;
  train::LearnerConfig config{.epochs = 2, .directory = directory};
  config.devices = std::move(devices);
  config.bucket_bytes = bucket_bytes;  // small: several buckets per step
  config.terminal = false;
  config.out = &console;
  data::DataLoader<Sample, Batch> train_loader(
      samples(), make_batch, {.batch_size = 12, .shuffle = 5, .device = autodiff});
  data::DataLoader<Sample, Batch> valid_loader(samples(), make_batch,
                                               {.batch_size = 12, .device = autodiff});
  train::Learner learner(std::move(config), model, optimizer, scheduler);
  learner.fit(train_loader, valid_loader, forward);
  return parameters_of(model);
}

}  // namespace ember::test::data_parallel_run
