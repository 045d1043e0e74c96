// The ember side of the GPU comparison (bench/run_cuda.py drives it, bench/peer_torch/cuda_ops.py
// is the PyTorch side): matmul, conv2d (cuDNN where it loads), elementwise ops, a GELU from
// primitive ops, softmax, sums along each dim, scaled dot-product attention (forward, and forward
// with backward), a device-to-device copy (the bandwidth ceiling) and the host time of tiny ops.
//
//   cuda_bench [--device cuda:0] [--quick]     every workload of the list, one JSON line each
//   cuda_bench --list [--quick]                the list itself (no device needed): the requests
//                                              cuda_ops.py answers, with the work of each
//   cuda_bench --check [--device cuda:0]       whether the device runs ops at all
//   cuda_bench --workload matmul --shape 4096,4096,4096 --dtype bf16 [--dim D] [--iterations N]
//              [--tf32]                        (f32 products in TF32: MatmulPrecision::High)
//   cuda_bench --workload conv2d --shape 32,64,56,56 --out-channels 64 --kernel 3 --padding 1
//   cuda_bench --workload attention_backward --shape 8,16,1024,64 --dtype bf16   ([B, H, L, E])
//
// Each workload runs 3 warm-up iterations, then N iterations (N chosen so that they last about
// 20 ms, at least 10; --iterations forces N) inside one profile window of the device clock (CUDA
// events on cuda: launch gaps count, no host sync per iteration), 5 times; the median window / N
// is reported. Every iteration ends with device.flush(): the fusion layer drops queued results
// that nobody holds any more, so without it only the last iteration would run (the flush starts
// the queued work, it does not wait for it). Devices without a clock (ndarray, flex, cpu: what
// --quick is for) measure the window in wall-clock time between two syncs.
//
// The tiny-op workloads are timed on the host clock instead: 10000 chained add_scalar on a [4]
// tensor, then a sync (tiny_add: the fusion layer runs the chain as one program per 128 queued
// ops, what an ember user gets; tiny_add_flush: a flush after each op, so each op is its own
// launch, as in PyTorch's eager mode).
//
// Output, one JSON object a line: {"workload", "shape", "dtype", "dim" (sum, softmax),
// "out_channels", "kernel", "padding" (conv2d), "device", "iterations", "ms" (median per
// iteration, per op for tiny_*), "gbs" (bytes read + written by the minimal kernel), "tflops"
// (matmul 2mnk, conv2d 2 N C_out H' W' C_in k^2, attention 4 B H L^2 E and with its backward
// 14 B H L^2 E, FlashAttention's count: the backward's five products, no recomputation) or
// "us_per_op", "checksum" (sum of |last output|),
// "host_ms" (host time per iteration to issue it)}. Exit status 3, with {"error": "no_device",
// "device", "message"} on stdout and the message on stderr, when the device cannot run ops (no GPU,
// no driver, backend not built); 2 for any other error.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "op_workloads.h"
#include "support/flags.h"
#include "support/json_line.h"
#include "support/median.h"
#include "support/pattern.h"

namespace {

using ember::Device;
using ember::TensorHandle;
using ember::bench::JsonLine;
using ember::bench::OpSpec;
using Dims = std::vector<int64_t>;

constexpr int kWarmups = 3;
constexpr int kRepeats = 5;
constexpr double kWindowMs = 20.0;
constexpr double kCalibrationMs = 2.0;  // long enough to scale from without a 20 ms guess
constexpr int64_t kMinIterations = 10;
constexpr int64_t kMaxIterations = 10'000'000;
constexpr int64_t kTinyOps = 10'000;
constexpr int kExitError = 2;
constexpr int kExitNoDevice = 3;

/// The shapes of the list: the comparison's, and --quick's (small enough for ndarray).
struct Sizes {
  int64_t matmul;        // bf16, f32 and f16
  int64_t matmul_large;  // bf16
  Dims elementwise;      // add, exp
  Dims gelu;             // GELU and the copy
  Dims along_dim;        // softmax (last dim), sum (each dim)
  Dims conv;             // conv2d's input [N, C, H, W]: C out channels, a 3x3 kernel, padding 1
  Dims attention;        // q, k, v [B, H, L, E]
};

const Sizes kFullSizes{4096,
                       8192,
                       {32, 512, 1024},
                       {32, 512, 2048},
                       {64, 1024, 1024},
                       {32, 64, 56, 56},
                       {8, 16, 1024, 64}};
const Sizes kQuickSizes{
    128, 256, {2, 64, 1024}, {2, 64, 2048}, {4, 64, 1024}, {2, 8, 12, 12}, {1, 2, 64, 16}};

bool is_tiny(const OpSpec& spec) {
  return spec.op == "tiny_add" || spec.op == "tiny_add_flush";
}

std::vector<OpSpec> workloads(const Sizes& s) {
  using ember::DType;
  const auto matmul = [](int64_t n, DType dtype) {
    return OpSpec{.op = "matmul", .shape = {n, n, n}, .dtype = dtype};
  };
  // The copy first: it is the ceiling the bandwidth rows are read against.
  std::vector<OpSpec> list{
      {.op = "copy", .shape = s.gelu},
      matmul(s.matmul, DType::BF16),
      matmul(s.matmul_large, DType::BF16),
      matmul(s.matmul, DType::F32),
      matmul(s.matmul, DType::F16),
      {.op = "add", .shape = s.elementwise},
      {.op = "exp", .shape = s.elementwise},
      {.op = "gelu", .shape = s.gelu},
      {.op = "softmax", .shape = s.along_dim, .dim = 2},
  };
  for (int64_t dim = 0; dim < 3; ++dim)
    list.push_back({.op = "sum", .shape = s.along_dim, .dim = dim});
  // A ResNet stage's 3x3 convolution, as many channels out as in.
  for (const DType dtype : {DType::F32, DType::BF16})
    list.push_back({.op = "conv2d",
                    .shape = s.conv,
                    .out_channels = s.conv.at(1),
                    .kernel = 3,
                    .padding = 1,
                    .dtype = dtype});
  for (const char* op : {"attention", "attention_backward"}) {
    for (const DType dtype : {DType::BF16, DType::F32})
      list.push_back({.op = op, .shape = s.attention, .dtype = dtype});
  }
  list.push_back({.op = "tiny_add", .shape = {4}});
  list.push_back({.op = "tiny_add_flush", .shape = {4}});
  return list;
}

double num_elements(const Dims& shape) {
  return static_cast<double>(ember::Shape(shape).num_elements());
}

/// The bytes the minimal kernel reads and writes: each input once, the output once.
double bytes_moved(const OpSpec& spec) {
  const double n = num_elements(spec.shape);
  const auto element = static_cast<double>(ember::dtype_size(spec.dtype));
  if (spec.op == "add") return 3 * n * element;
  if (spec.op == "sum") {
    const auto dim = static_cast<std::size_t>(spec.dim);
    return (n + n / static_cast<double>(spec.shape.at(dim))) * element;
  }
  return 2 * n * element;  // exp, gelu, softmax, copy
}

/// The floating-point operations of a matmul (2mnk, shape [m, k, n]), a conv2d
/// (2 N C_out H' W' C_in k^2) or attention.
double flops(const OpSpec& spec) {
  if (spec.op == "attention" || spec.op == "attention_backward") {
    // [B, H, L, E]: 2 B H L^2 E a product, two forward, five more backward.
    const double products = spec.op == "attention" ? 2.0 : 7.0;
    return products * 2.0 * num_elements(spec.shape) * static_cast<double>(spec.shape.at(2));
  }
  if (spec.op != "conv2d") return 2.0 * num_elements(spec.shape);
  const auto out_size = [&](int64_t in) {
    return static_cast<double>(in + 2 * spec.padding - spec.kernel + 1);
  };
  return 2.0 *
         static_cast<double>(spec.shape[0] * spec.out_channels * spec.shape[1] * spec.kernel *
                             spec.kernel) *
         out_size(spec.shape[2]) * out_size(spec.shape[3]);
}

bool counts_flops(const OpSpec& spec) {
  return spec.op == "matmul" || spec.op == "conv2d" || spec.op == "attention" ||
         spec.op == "attention_backward";
}

/// The fields naming a workload, which cuda_ops.py reads as its request.
JsonLine describe(const OpSpec& spec) {
  JsonLine line;
  line.text("workload", spec.op)
      .integers("shape", spec.shape)
      .text("dtype", std::string(ember::dtype_name(spec.dtype)));
  if (spec.op == "sum" || spec.op == "softmax") line.integer("dim", spec.dim);
  if (spec.op == "conv2d")
    line.integer("out_channels", spec.out_channels)
        .integer("kernel", spec.kernel)
        .integer("padding", spec.padding);
  return line;
}

/// describe() plus the work of one iteration (--list), so that the peer's figures count the same.
void print_request(const OpSpec& spec) {
  JsonLine line = describe(spec);
  if (is_tiny(spec))
    line.integer("ops", kTinyOps);
  else if (counts_flops(spec))
    line.number("flops", flops(spec));
  else
    line.number("bytes", bytes_moved(spec));
  line.print();
}

struct Timing {
  double ms;  // per iteration (per op for tiny_*)
  int64_t iterations;
  double checksum;
  double host_ms = 0;  // host time per iteration to issue the work (0 for tiny_*)
};

/// A window's milliseconds on the device clock, and on the host's while it issued the work: where
/// the two are close, the host's dispatch, not the kernels, sets the pace.
struct Window {
  double device_ms;
  double host_ms;
};

/// n iterations of step in one profile window. Each iteration is flushed, so that its result is
/// computed although the next one drops it (see the top of the file).
Window window_ms(const Device& device, const ember::bench::Step& step, int64_t n,
                 TensorHandle& last) {
  std::chrono::steady_clock::duration issued{};
  const ember::ProfileDuration window = device.profile_with(ember::ProfileOptions{}.flush(), [&] {
    const auto begin = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      last = step();
      device.flush();
    }
    issued = std::chrono::steady_clock::now() - begin;
  });
  const std::optional<ember::ProfileTicks> ticks = window.resolve();
  if (!ticks) throw ember::ExecutionError("[cuda_bench] the profile window saw no work");
  return {std::chrono::duration<double, std::milli>(ticks->duration()).count(),
          std::chrono::duration<double, std::milli>(issued).count()};
}

/// The N whose window lasts about kWindowMs, scaled from a window of at least kCalibrationMs.
int64_t iterations_for(const Device& device, const ember::bench::Step& step, TensorHandle& last) {
  int64_t n = kWarmups;
  double ms = window_ms(device, step, n, last).device_ms;
  while (ms < kCalibrationMs && n < kMaxIterations) {
    n *= 4;
    ms = window_ms(device, step, n, last).device_ms;
  }
  const auto scaled = static_cast<int64_t>(std::ceil(static_cast<double>(n) * kWindowMs / ms));
  return std::clamp(scaled, kMinIterations, kMaxIterations);
}

Timing time_step(const OpSpec& spec, const Device& device, int64_t forced_iterations) {
  const ember::bench::Step step = ember::bench::make_step(spec, device);
  TensorHandle last;
  for (int i = 0; i < kWarmups; ++i) {
    last = step();
    device.flush();
  }
  device.sync();  // the warm-ups (and the kernels they compiled) stay out of every window
  const int64_t n = forced_iterations > 0 ? forced_iterations : iterations_for(device, step, last);
  std::vector<double> per_iteration, host_per_iteration;
  for (int r = 0; r < kRepeats; ++r) {
    const Window window = window_ms(device, step, n, last);
    per_iteration.push_back(window.device_ms / static_cast<double>(n));
    host_per_iteration.push_back(window.host_ms / static_cast<double>(n));
  }
  return {ember::bench::median(per_iteration), n, ember::bench::checksum(last),
          ember::bench::median(host_per_iteration)};
}

/// Host milliseconds of kTinyOps chained add_scalar from start, and a sync: what the caller waits
/// for, dispatch and launches included; flush_each launches each op on its own.
double tiny_loop_ms(const Device& device, const TensorHandle& start, bool flush_each,
                    TensorHandle& last) {
  const auto begin = std::chrono::steady_clock::now();
  TensorHandle x = start;
  for (int64_t i = 0; i < kTinyOps; ++i) {
    x = ember::ops::add_scalar(x, 1.0);
    if (flush_each) device.flush();
  }
  device.sync();
  const auto end = std::chrono::steady_clock::now();
  last = x;
  return std::chrono::duration<double, std::milli>(end - begin).count();
}

Timing time_tiny(const OpSpec& spec, const Device& device) {
  const TensorHandle start =
      ember::ops::cast(ember::bench::pattern(ember::Shape(spec.shape), 0, device), spec.dtype);
  const bool flush_each = spec.op == "tiny_add_flush";
  TensorHandle last;
  for (int i = 0; i < kWarmups; ++i)
    tiny_loop_ms(device, start, flush_each, last);
  std::vector<double> per_op;
  for (int r = 0; r < kRepeats; ++r)
    per_op.push_back(tiny_loop_ms(device, start, flush_each, last) / kTinyOps);
  return {ember::bench::median(per_op), kTinyOps, ember::bench::checksum(last)};
}

void run_workload(const OpSpec& spec, const Device& device, int64_t forced_iterations) {
  const Timing t =
      is_tiny(spec) ? time_tiny(spec, device) : time_step(spec, device, forced_iterations);
  JsonLine line = describe(spec);
  line.text("device", device.name()).integer("iterations", t.iterations).number("ms", t.ms);
  if (is_tiny(spec))
    line.number("us_per_op", t.ms * 1e3);
  else if (counts_flops(spec))
    line.number("tflops", flops(spec) / (t.ms * 1e-3) / 1e12);
  else
    line.number("gbs", bytes_moved(spec) / (t.ms * 1e-3) / 1e9);
  if (!is_tiny(spec)) line.number("host_ms", t.host_ms);
  line.number("checksum", t.checksum).print();
}

/// The device named, once an op has run and been read back on it; nullopt, said on stdout (for
/// run_cuda.py) and stderr, when it cannot run one: no GPU, no driver, or the backend not built.
std::optional<Device> usable_device(const std::string& name, bool tf32) {
  try {
    Device device = Device::from_name(name);
    // Before the first tensor, which locks the settings.
    if (tf32)
      device.configure(
          ember::DeviceConfig{}.with_f32_matmul_precision(ember::MatmulPrecision::High));
    ember::ops::into_data(ember::ops::full(
        ember::Shape{1}, 1.0, ember::TensorCreationOptions(device), ember::TensorKind::Float));
    return device;
  } catch (const ember::Error& e) {
    JsonLine().text("error", "no_device").text("device", name).text("message", e.what()).print();
    std::fprintf(stderr, "cuda_bench: no usable device %s: %s\n", name.c_str(), e.what());
    return std::nullopt;
  }
}

ember::DType dtype_flag(const ember::bench::Flags& flags) {
  const std::string name = flags.text("dtype", "f32");
  const std::optional<ember::DType> dtype = ember::dtype_from_name(name);
  if (!dtype) throw ember::InvalidArgument("[cuda_bench] --dtype: unknown dtype '" + name + "'");
  return *dtype;
}

/// --dim counted from the end when negative, as the ops count it (the byte count needs it).
int64_t dim_flag(const ember::bench::Flags& flags, std::size_t rank) {
  const int64_t dim = flags.integer("dim", -1);
  const auto r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r)
    throw ember::InvalidArgument("[cuda_bench] --dim " + std::to_string(dim) +
                                 " is out of range for a shape of " + std::to_string(rank) +
                                 " dims");
  return dim < 0 ? dim + r : dim;
}

/// --workload's one spec, or the whole list.
std::vector<OpSpec> chosen(const ember::bench::Flags& flags) {
  if (!flags.has("workload")) return workloads(flags.has("quick") ? kQuickSizes : kFullSizes);
  const Dims shape = flags.integers("shape");
  return {OpSpec{.op = flags.text("workload", ""),
                 .shape = shape,
                 .dim = dim_flag(flags, shape.size()),
                 .out_channels = flags.integer("out-channels", shape.size() > 1 ? shape[1] : 1),
                 .kernel = flags.integer("kernel", 3),
                 .padding = flags.integer("padding", 1),
                 .dtype = dtype_flag(flags)}};
}

int run(const ember::bench::Flags& flags) {
  const std::vector<OpSpec> specs = chosen(flags);
  if (flags.has("list")) {
    for (const OpSpec& spec : specs)
      print_request(spec);
    return 0;
  }
  const std::optional<Device> device =
      usable_device(flags.text("device", "cuda:0"), flags.has("tf32"));
  if (!device) return kExitNoDevice;
  if (flags.has("check")) {
    JsonLine().text("device", device->name()).print();
    return 0;
  }
  for (const OpSpec& spec : specs)
    run_workload(spec, *device, flags.integer("iterations", 0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(ember::bench::Flags(argc, argv,
                                   {"device", "workload", "shape", "dtype", "dim", "iterations",
                                    "out-channels", "kernel", "padding"},
                                   {"quick", "list", "check", "tf32"}));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_bench: %s\n", e.what());
    return kExitError;
  }
}
