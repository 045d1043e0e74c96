// A character-level transformer language model trained on the GNU GPL v3 (every Debian system
// has it): it predicts each character from the 64 before it, prints its loss on the held-out last
// 10% next to log(vocabulary), then continues a prompt. Usage: example_char_transformer [steps].
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ember/data/data.h"
#include "ember/ember.h"
#include "ember/nn/layers.h"
#include "ember/optim/optim.h"

namespace {

using namespace ember;

constexpr int64_t kContext = 64;  // characters the model sees
constexpr int64_t kDModel = 64;
constexpr double kLearningRate = 3e-3;

/// text's characters as their indices in alphabet (-1, which Embedding refuses, if absent).
std::vector<int64_t> encode(const std::string& text, const std::string& alphabet) {
  std::vector<int64_t> ids(text.size());
  std::ranges::transform(text, ids.begin(), [&](char c) { return int64_t(alphabet.find(c)); });
  return ids;
}

/// The DataLoader's batcher: B windows of kContext + 1 ids → one tensor [B, kContext + 1].
Tensor<2, Int> stack(const std::vector<std::vector<int64_t>>& windows, const Device& device) {
  std::vector<int64_t> ids;
  for (const std::vector<int64_t>& window : windows)
    ids.insert(ids.end(), window.begin(), window.end());
  return Tensor<1, Int>::from_ints(ids, device).reshape<2>({-1, kContext + 1});
}

/// Embedding + sinusoidal positions → 2 pre-norm encoder layers with a causal mask → logits.
struct CharTransformer {
  nn::Embedding embedding;
  nn::PositionalEncoding position;
  nn::TransformerEncoder encoder;
  nn::Linear head;
  EMBER_MODULE(embedding, position, encoder, head)

  static CharTransformer init(int64_t vocab, const Device& device) {
    const nn::TransformerEncoderLayerConfig layer{
        .d_model = kDModel, .nhead = 4, .dim_feedforward = 4 * kDModel, .norm_first = true};
    return {nn::EmbeddingConfig{vocab, kDModel}.init(device),
            nn::PositionalEncodingConfig{kDModel}.init(device),
            nn::TransformerEncoderConfig{layer, 2, /*final_norm=*/true}.init(device),
            nn::LinearConfig{kDModel, vocab}.init(device)};
  }
  /// tokens [B, L] → logits [B, L, vocab] for the next character; position i sees 0..i only.
  Tensor<3> forward(const Tensor<2, Int>& tokens) const {
    const Tensor<3> x = position.forward(embedding.forward(tokens));
    return head.forward(encoder.forward(x, {.is_causal = true}));
  }
  /// The mean cross-entropy (nats) of each character of windows [B, L + 1] after the first.
  Tensor<1> loss(const Tensor<2, Int>& windows) const {
    const Tensor<3> logits = forward(windows.narrow(1, 0, kContext));
    return module::cross_entropy(logits.reshape<2>({-1, logits.dims()[2]}),
                                 windows.narrow(1, 1, kContext).reshape<1>({-1}));
  }
};

/// AdamW, gradients clipped to norm 1, a 10% linear warm-up then a cosine decay to 0.
void train(CharTransformer& model, auto& loader, int64_t steps) {
  optim::AdamW optimizer = optim::AdamWConfig{}.init();
  const int64_t warmup = std::max<int64_t>(1, steps / 10);
  optim::SequentialLr schedule = optim::SequentialLrConfig{
      {optim::shared(optim::LinearLrConfig{kLearningRate / 10, kLearningRate, warmup}.init()),
       optim::shared(optim::CosineAnnealingLrConfig{kLearningRate, steps - warmup + 1}.init())},
      {warmup}}.init();
  for (int64_t step = 1; step <= steps;) {
    for (Tensor<2, Int>& windows : loader.epoch()) {
      const Tensor<1> loss = model.loss(windows);
      optim::GradientsParams grads = optim::GradientsParams::from(model, loss.backward());
      optim::clip_grad_norm(grads, 1.0);
      optimizer.step(model, grads, schedule.lr());
      schedule.step();
      if (step % 50 == 0)
        std::printf("step %5" PRId64 "  loss %.4f\n", step, loss.into_scalar<double>());
      if (++step > steps) break;
    }
  }
}

/// The id of the character after ids (the last kContext count), drawn from softmax(logits / T)
/// with temperature T = 0.8 by the Gumbel-max trick: argmax(logits / T - log(-log(u))), u uniform.
int64_t next_id(const CharTransformer& model, std::vector<int64_t> ids, const Device& device) {
  if (std::ssize(ids) > kContext) ids.erase(ids.begin(), ids.end() - kContext);
  const auto n = std::ssize(ids);
  const Tensor<3> logits = model.forward(Tensor<1, Int>::from_ints(ids, device).reshape<2>({1, n}));
  const Tensor<2> last = logits.narrow(1, n - 1, 1).reshape<2>({1, -1});
  const Tensor<2> u = Tensor<2>::random(last.dims(), Distribution::uniform(1e-9, 1), device);
  return (last / 0.8 - (-u.log()).log()).argmax(1).into_scalar<int64_t>();
}

void run(int64_t steps) {
  const Device device = Device::default_device().autodiff();
  device.seed(42);
  std::ifstream file("/usr/share/common-licenses/GPL-3", std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(file), {}};
  if (std::ssize(text) < 10 * (kContext + 1))  // the held-out 10% must hold a window
    throw InvalidArgument("[char_transformer] cannot read 650 characters of the GPL-3 text");
  std::string alphabet = text;  // the distinct characters, sorted: a character's id is its index
  std::ranges::sort(alphabet);
  alphabet.erase(std::ranges::unique(alphabet).begin(), alphabet.end());
  const std::vector<int64_t> ids = encode(text, alphabet);
  const auto split = ids.begin() + std::ssize(ids) * 9 / 10;
  data::DataLoader train_loader(
      data::windows(data::in_memory(std::vector<int64_t>(ids.begin(), split)), kContext + 1), stack,
      {.batch_size = 32, .shuffle = 7, .device = device});
  CharTransformer model = CharTransformer::init(std::ssize(alphabet), device);
  train(model, train_loader, steps);
  nn::eval(model);
  const NoGradGuard no_grad;
  // Validation: the held-out text as windows side by side, so each character counts once.
  const std::vector<int64_t> held_out(
      split, split + (ids.end() - split) / (kContext + 1) * (kContext + 1));
  const Tensor<2, Int> valid =
      Tensor<1, Int>::from_ints(held_out, device).reshape<2>({-1, kContext + 1});
  std::printf("validation loss: %.4f\nuniform baseline: %.4f (log of the vocabulary size)\n",
              model.loss(valid).into_scalar<double>(), std::log(alphabet.size()));
  std::string sample = "This License ";
  for (int i = 0; i < 200; ++i)
    sample += alphabet[next_id(model, encode(sample, alphabet), device)];
  std::printf("%s\n", sample.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t steps = argc > 1 ? std::atoll(argv[1]) : 1000;
  try {
    if (steps < 1)
      throw ember::InvalidArgument("[char_transformer] steps must be a positive integer, got '" +
                                   std::string(argv[1]) + "'");
    run(steps);
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "char_transformer: %s\n", e.what());
    return 1;
  }
}
