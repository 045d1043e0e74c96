// The ember side of the encoder training-step comparison (bench/run_encoder.py drives it,
// bench/peer_torch/encoder_step.py is the PyTorch side): one training step of a RoBERTa-base-sized
// encoder, timed on the device clock.
//
//   encoder_step_bench [--device cuda:0] [--dtype f32|bf16] [--layers 12] [--hidden 768]
//                      [--heads 12] [--ffn 3072] [--batch 2] [--seq 256] [--vocab 50265]
//                      [--steps 20] [--quick] [--no-graph-replay] [--autocast bf16|f16]
//
// The model (nn::TransformerEncoder's layers are torch.nn.TransformerEncoderLayer's):
//   embeddings  token ids [B, L] → nn::Embedding(vocab, hidden) + nn::Embedding(max(seq, 514),
//               hidden) of the positions 0..L-1, then LayerNorm(hidden), then Dropout(0.1)
//               (RoBERTa's embeddings less its one-row token-type table); --vocab 0 leaves them
//               out, and the encoder reads fixed f32 features [B, L, hidden] instead
//   encoder     --layers TransformerEncoderLayer(hidden, heads, ffn, dropout 0.1, GELU (exact),
//               post-norm as RoBERTa), no final norm, no mask
//   head        nn::Linear(hidden, 2) on the first token's output ([B, hidden])
//   loss        cross-entropy (mean) against the labels b % 2
// trained with autodiff and AdamW (lr 1e-4, weight decay 0.01, betas 0.9/0.999, eps 1e-8), in
// training mode (dropout on, drawn from the device's stream seeded with 42). The inputs are fixed:
// token b·L + l is (7919 (b·L + l) + 12345) mod vocab, as encoder_step.py makes them. The
// parameters are created inside Device::memory_persistent_allocations (exact-size storage; each
// AdamW step then replaces them with pooled tensors, as any update does).
//
// --dtype bf16 makes the device's default float dtype bf16 before anything is created
// (Device::configure): parameters, activations, gradients, AdamW's state and the loss are all
// bf16 ("precision": "bf16 model (no autocast)"; ember has no autocast yet). f32 is full f32
// (ember's cuda matmuls never use TF32).
//
// --autocast bf16 trains an f32 model on Device::autocast(bf16) (docs/mixed-precision.md: matmuls
// in bf16, reductions and softmax in f32; "precision": "f32 model, autocast bf16").
// --no-graph-replay issues every launch one by one (DeviceConfig::with_graph_replay(false)); by
// default the cuda device replays each step's repeated chunks of launches as CUDA graphs.
//
// Timing: 3 warm-up steps (their first loss is read back: the kernels they compiled stay out of
// every window), then 3 windows of --steps steps, each window one profile window of the device
// clock (CUDA events on cuda: launch gaps count, no host sync per step), each step ending with
// device.flush() (the flush starts the queued work, it does not wait for it); then a sync. The
// median window / steps is "ms". Devices without a clock (cpu, flex, ndarray: what --quick is
// for) measure each window in wall-clock time between two syncs ("clock": "wall").
//
// Output, one JSON object on one line: {"bench": "encoder_step", "device", "dtype", "precision",
// "graph_replay", "clock", the model's sizes, "params", "embedding", "head", "loss", "optimizer",
// "warmups", "steps", "windows", "ms" (median per step), "ms_windows", "host_ms" (host time per
// step to issue the work, median), "loss_first" (the first warm-up step's), "loss_last" (the last
// timed step's), "finite" (both losses finite)}. Exit status 3, with {"error": "no_device",
// "device", "message"} on stdout and the message on stderr, when the device cannot run ops (no GPU,
// no driver, backend not built) or does not support the dtype; 2 for any other error; 4 when a loss
// is not finite (the line is printed first).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/dropout.h"
#include "ember/nn/embedding.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"
#include "ember/nn/transformer.h"
#include "ember/optim/adam.h"
#include "ember/optim/gradients_params.h"
#include "support/flags.h"
#include "support/json_line.h"
#include "support/median.h"
#include "support/pattern.h"

namespace {

using namespace ember;
using bench::Flags;
using bench::JsonLine;

constexpr int kWarmups = 3;
constexpr int kWindows = 3;
constexpr int64_t kLabels = 2;
constexpr int64_t kRobertaPositions = 514;  // RoBERTa's max_position_embeddings
constexpr double kDropout = 0.1;
constexpr double kLr = 1e-4;
constexpr double kWeightDecay = 0.01;
constexpr uint64_t kSeed = 42;
constexpr int kExitError = 2;
constexpr int kExitNoDevice = 3;
constexpr int kExitNotFinite = 4;

struct Sizes {
  int64_t layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t ffn = 3072;
  int64_t batch = 2;
  int64_t seq = 256;
  int64_t vocab = 50265;  // 0: no embeddings, fixed features go in
};

/// --quick's tiny model, for testing the whole path on a CPU.
const Sizes kQuickSizes{2, 64, 4, 256, 2, 32, 1000};

int64_t position_rows(const Sizes& s) {
  return std::max(s.seq, kRobertaPositions);
}

/// RoBERTa's embeddings (less the token-type table): tokens + positions, LayerNorm, dropout.
struct Embeddings {
  nn::Embedding tokens;
  nn::Embedding positions;
  nn::LayerNorm norm;
  nn::Dropout dropout;
  EMBER_MODULE(tokens, positions, norm, dropout)

  Tensor<3> forward(const Tensor<2, Int>& ids, const Tensor<2, Int>& position_ids) const {
    return dropout.forward(norm.forward(tokens.forward(ids) + positions.forward(position_ids)));
  }
};

struct Encoder {
  std::optional<Embeddings> embeddings;
  nn::TransformerEncoder encoder;
  nn::Linear head;
  EMBER_MODULE(embeddings, encoder, head)
};

/// What goes in each step: token and position ids (with embeddings) or features, and labels.
struct Batch {
  std::optional<Tensor<2, Int>> ids = std::nullopt;
  std::optional<Tensor<2, Int>> position_ids = std::nullopt;
  std::optional<Tensor<3>> features = std::nullopt;
  Tensor<1, Int> labels = {};
};

/// The logits [B, 2] of the first token.
Tensor<2> forward(const Encoder& model, const Batch& batch) {
  const Tensor<3> x = model.embeddings ? model.embeddings->forward(*batch.ids, *batch.position_ids)
                                       : *batch.features;
  const Tensor<3> y = model.encoder.forward(x);
  return model.head.forward(y.narrow(1, 0, 1).squeeze<2>(1));
}

Encoder make_model(const Sizes& s, const Device& device) {
  return device.memory_persistent_allocations(device, [&](const Device& d) {
    Encoder model{
        .embeddings = std::nullopt,
        .encoder = nn::TransformerEncoderConfig{{s.hidden, s.heads, s.ffn, kDropout,
                                                 nn::TransformerActivation::Gelu, 1e-5, false},
                                                s.layers}
                       .init(d),
        .head = nn::LinearConfig{s.hidden, kLabels}.init(d)};
    if (s.vocab > 0) {
      model.embeddings = Embeddings{nn::EmbeddingConfig{s.vocab, s.hidden}.init(d),
                                    nn::EmbeddingConfig{position_rows(s), s.hidden}.init(d),
                                    nn::LayerNormConfig{{s.hidden}, 1e-5}.init(d),
                                    nn::DropoutConfig{kDropout}.init(d)};
    }
    return model;
  });
}

/// An Int tensor [rows, cols] of values(i) for its elements i in row-major order.
template <typename F>
Tensor<2, Int> int_matrix(int64_t rows, int64_t cols, F values, const Device& device) {
  std::vector<int64_t> data;
  for (int64_t i = 0; i < rows * cols; ++i)
    data.push_back(values(i));
  return Tensor<2, Int>::from_data(TensorData(data, Shape{rows, cols}), device);
}

Batch make_batch(const Sizes& s, const Device& device) {
  std::vector<int64_t> labels;
  for (int64_t b = 0; b < s.batch; ++b)
    labels.push_back(b % kLabels);
  Batch batch{.labels = Tensor<1, Int>::from_ints(labels, device)};
  if (s.vocab > 0) {
    batch.ids = int_matrix(
        s.batch, s.seq, [&](int64_t i) { return (7919 * i + 12345) % s.vocab; }, device);
    batch.position_ids = int_matrix(
        s.batch, s.seq, [&](int64_t i) { return i % s.seq; }, device);
  } else {
    // bench::pattern is f32; the features take the model's dtype.
    batch.features = Tensor<3>(bench::pattern(Shape{s.batch, s.seq, s.hidden}, 0, device))
                         .cast(device.settings().float_dtype);
  }
  return batch;
}

/// One training step: forward, cross-entropy, backward, AdamW. Returns the loss (not read).
Tensor<1> train_step(Encoder& model, optim::AdamW& optimizer, const Batch& batch) {
  const Tensor<1> loss = module::cross_entropy(forward(model, batch), batch.labels);
  const Gradients grads = loss.backward();
  optimizer.step(model, optim::GradientsParams::from(model, grads), kLr);
  return loss;
}

struct Window {
  double ms;       // on the device clock where it has one, else wall clock between two syncs
  double host_ms;  // the host's time to issue the steps
};

Window window(const Device& device, int64_t steps, Encoder& model, optim::AdamW& optimizer,
              const Batch& batch, Tensor<1>& last) {
  std::chrono::steady_clock::duration issued{};
  const ProfileDuration duration = device.profile_with(ProfileOptions{}.flush(), [&] {
    const auto begin = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < steps; ++i) {
      last = train_step(model, optimizer, batch);
      device.flush();
    }
    issued = std::chrono::steady_clock::now() - begin;
  });
  const std::optional<ProfileTicks> ticks = duration.resolve();
  if (!ticks) throw ExecutionError("[encoder_step_bench] the profile window saw no work");
  return {std::chrono::duration<double, std::milli>(ticks->duration()).count(),
          std::chrono::duration<double, std::milli>(issued).count()};
}

/// The device named, its default float dtype set to dtype, once an op has run and been read
/// back on it; nullopt, said on stdout (for run_encoder.py) and stderr, when it cannot.
std::optional<Device> usable_device(const std::string& name, DType dtype, bool graph_replay) {
  try {
    Device device = Device::from_name(name);
    if (!device.supports_dtype(dtype))
      throw InvalidArgument(name + " does not support " + std::string(dtype_name(dtype)));
    device.configure(DeviceConfig(to_float_dtype(dtype)).with_graph_replay(graph_replay));
    ops::into_data(ops::full(Shape{1}, 1.0, TensorCreationOptions(device), TensorKind::Float));
    return device;
  } catch (const Error& e) {
    JsonLine().text("error", "no_device").text("device", name).text("message", e.what()).print();
    std::fprintf(stderr, "encoder_step_bench: no usable device %s: %s\n", name.c_str(), e.what());
    return std::nullopt;
  }
}

DType dtype_flag(const Flags& flags) {
  const std::string name = flags.text("dtype", "f32");
  const std::optional<DType> dtype = dtype_from_name(name);
  if (!dtype || (*dtype != DType::F32 && *dtype != DType::BF16))
    throw InvalidArgument("[encoder_step_bench] --dtype: f32 or bf16, not '" + name + "'");
  return *dtype;
}

/// --autocast: the reduced dtype the f32 model's matmuls run in, or nullopt.
std::optional<FloatDType> autocast_flag(const Flags& flags) {
  const std::string name = flags.text("autocast", "");
  if (name.empty()) return std::nullopt;
  const std::optional<DType> dtype = dtype_from_name(name);
  if (!dtype || (*dtype != DType::BF16 && *dtype != DType::F16))
    throw InvalidArgument("[encoder_step_bench] --autocast: bf16 or f16, not '" + name + "'");
  return to_float_dtype(*dtype);
}

Sizes sizes_flag(const Flags& flags) {
  const Sizes base = flags.has("quick") ? kQuickSizes : Sizes{};
  const Sizes s{flags.integer("layers", base.layers), flags.integer("hidden", base.hidden),
                flags.integer("heads", base.heads),   flags.integer("ffn", base.ffn),
                flags.integer("batch", base.batch),   flags.integer("seq", base.seq),
                flags.integer("vocab", base.vocab)};
  if (s.layers < 1 || s.hidden < 1 || s.heads < 1 || s.ffn < 1 || s.batch < 1 || s.seq < 1 ||
      s.vocab < 0)
    throw InvalidArgument(
        "[encoder_step_bench] --layers, --hidden, --heads, --ffn, --batch, --seq must be >= 1 "
        "and --vocab >= 0");
  return s;
}

std::string embedding_text(const Sizes& s) {
  if (s.vocab == 0) return "none (fixed f32 features [B, L, hidden] go in, cast to the dtype)";
  return "tokens " + std::to_string(s.vocab) + " + positions " + std::to_string(position_rows(s)) +
         ", LayerNorm, dropout 0.1";
}

int run(const Flags& flags) {
  const DType dtype = dtype_flag(flags);
  const Sizes s = sizes_flag(flags);
  const int64_t steps = flags.integer("steps", 20);
  if (steps < 1) throw InvalidArgument("[encoder_step_bench] --steps must be >= 1");
  const std::string name = flags.text("device", "cuda:0");
  const bool graph_replay = !flags.has("no-graph-replay");
  const std::optional<Device> plain = usable_device(name, dtype, graph_replay);
  if (!plain) return kExitNoDevice;
  const std::optional<FloatDType> autocast = autocast_flag(flags);
  if (autocast && dtype != DType::F32)
    throw InvalidArgument("[encoder_step_bench] --autocast takes an f32 model (--dtype f32)");
  const Device device = autocast ? plain->autodiff().autocast(*autocast) : plain->autodiff();
  device.seed(kSeed);

  Encoder model = make_model(s, device);
  nn::train(model);
  const Batch batch = make_batch(s, device);
  optim::AdamW optimizer = optim::AdamWConfig{.weight_decay = kWeightDecay}.init();

  Tensor<1> last = train_step(model, optimizer, batch);
  const auto loss_first = last.into_scalar<double>();
  for (int i = 1; i < kWarmups; ++i) {
    last = train_step(model, optimizer, batch);
    device.flush();
  }
  device.sync();
  std::vector<double> per_step, host_per_step;
  for (int w = 0; w < kWindows; ++w) {
    const Window timed = window(device, steps, model, optimizer, batch, last);
    per_step.push_back(timed.ms / static_cast<double>(steps));
    host_per_step.push_back(timed.host_ms / static_cast<double>(steps));
  }
  device.sync();
  const auto loss_last = last.into_scalar<double>();
  const bool finite = std::isfinite(loss_first) && std::isfinite(loss_last);

  const bool device_clock = name.rfind("cuda", 0) == 0;
  JsonLine()
      .text("bench", "encoder_step")
      .text("device", device.name())
      .text("dtype", std::string(dtype_name(dtype)))
      .text("precision", autocast ? "f32 model, autocast " + flags.text("autocast", "")
                         : dtype == DType::BF16 ? "bf16 model (no autocast)"
                                                : "f32 (no TF32)")
      .text("graph_replay", graph_replay ? "on" : "off")
      .text("clock", device_clock ? "device (CUDA events)" : "wall (between two syncs)")
      .integer("layers", s.layers)
      .integer("hidden", s.hidden)
      .integer("heads", s.heads)
      .integer("ffn", s.ffn)
      .integer("batch", s.batch)
      .integer("seq", s.seq)
      .integer("vocab", s.vocab)
      .number("dropout", kDropout)
      .integer("params", nn::num_parameters(model))
      .text("embedding", embedding_text(s))
      .text("head", "Linear(hidden, 2) on the first token")
      .text("loss", "cross-entropy (mean), labels b % 2")
      .text("optimizer", "AdamW lr 1e-4, weight decay 0.01, betas (0.9, 0.999), eps 1e-8")
      .integer("warmups", kWarmups)
      .integer("steps", steps)
      .integer("windows", kWindows)
      .number("ms", bench::median(per_step))
      .numbers("ms_windows", per_step)
      .number("host_ms", bench::median(host_per_step))
      .number("loss_first", loss_first)
      .number("loss_last", loss_last)
      .boolean("finite", finite)
      .print();
  if (!finite) {
    std::fprintf(stderr, "encoder_step_bench: a loss is not finite (%g, %g)\n", loss_first,
                 loss_last);
    return kExitNotFinite;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(Flags(argc, argv,
                     {"device", "dtype", "autocast", "layers", "hidden", "heads", "ffn", "batch",
                      "seq", "vocab", "steps"},
                     {"quick", "no-graph-replay"}));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "encoder_step_bench: %s\n", e.what());
    return kExitError;
  }
}
