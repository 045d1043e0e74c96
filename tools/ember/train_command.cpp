#include "train_command.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/error.h"
#include "fashion_mnist.h"

namespace ember::cli {
namespace {

struct TrainArgs {
  std::string device;
  std::vector<std::string> devices;
  std::string precision = "f32";
  int64_t epochs = fashion_mnist::Options{}.epochs;
  int64_t batch_size = static_cast<int64_t>(fashion_mnist::Options{}.batch_size);
  fashion_mnist::Options options;
};

/// InvalidArgument "--name must be at least minimum (got value)" unless value >= minimum: CLI11's
/// own range check prints its bounds in full ("0.000000 to 1797693...", DBL_MAX).
void require_at_least(const char* name, int64_t value, int64_t minimum) {
  if (value < minimum) {
    throw InvalidArgument(std::string(name) + " must be at least " + std::to_string(minimum) +
                          " (got " + std::to_string(value) + ")");
  }
}

/// InvalidArgument "--name must be a positive number (got value)" unless value > 0.
void require_positive(const char* name, double value) {
  if (!(value > 0)) {
    std::ostringstream message;
    message << name << " must be a positive number (got " << value << ")";
    throw InvalidArgument(message.str());
  }
}

/// The autocast dtype --precision names: none for f32, BF16 for bf16, F16 for f16.
std::optional<FloatDType> autocast_named(const std::string& precision) {
  if (precision == "f32") return std::nullopt;
  if (precision == "bf16") return FloatDType::BF16;
  if (precision == "f16") return FloatDType::F16;
  throw InvalidArgument("--precision must be f32, bf16 or f16 (got '" + precision + "')");
}

Device device_named(const std::string& name) {
  return name.empty() ? Device::default_device() : Device::from_name(name);
}

void add_device_option(CLI::App& command, std::string& device) {
  command.add_option("--device", device,
                     "device name (ndarray, cpu, cuda:0, ...); default: the "
                     "default device");
}

/// --precision: f32, or an autocast dtype the command's ops run in (parameters stay f32).
void add_precision_option(CLI::App& command, std::string& precision, const char* verb) {
  command.add_option("--precision", precision,
                     std::string(verb) +
                         " in f32, or in mixed precision: bf16, or f16 (training: with loss "
                         "scaling); parameters stay f32 (default f32)");
}

void train_fashion_mnist(TrainArgs& args) {
  require_at_least("--epochs", args.epochs, 1);
  require_at_least("--batch-size", args.batch_size, 1);
  require_positive("--lr", args.options.learning_rate);
  args.options.epochs = args.epochs;
  args.options.batch_size = static_cast<std::size_t>(args.batch_size);
  args.options.device = device_named(args.device);
  for (const std::string& name : args.devices)
    args.options.devices.push_back(device_named(name));
  args.options.autocast = autocast_named(args.precision);
  std::ostringstream device;
  device << args.options.compute_device();
  if (!args.devices.empty())
    device << " (data-parallel over " << args.devices.size() << " devices)";
  std::printf("training on %s\n", device.str().c_str());
  std::printf("test accuracy: %.4f\n", fashion_mnist::run(args.options));
}

struct EvalArgs {
  std::string device;
  std::string precision = "f32";
  std::string checkpoint;
};

void eval_checkpoint(const EvalArgs& args) {
  fashion_mnist::Options options;
  options.device = device_named(args.device);
  options.autocast = autocast_named(args.precision);
  fashion_mnist::Cnn model = fashion_mnist::Cnn::init(options.compute_device());
  record::load(model, args.checkpoint);
  std::printf("test accuracy: %.4f\n", fashion_mnist::evaluate(model, options));
}

}  // namespace

void add_train_commands(CLI::App& app) {
  CLI::App* train = app.add_subcommand("train", "train a model (the main job)");
  train->require_subcommand(1);
  auto args = std::make_shared<TrainArgs>();
  CLI::App* fmnist = train->add_subcommand(
      "fashion-mnist", "train a small CNN on Fashion-MNIST; last line: test accuracy");
  add_device_option(*fmnist, args->device);
  fmnist
      ->add_option("--devices", args->devices,
                   "data-parallel training over these devices of this process, one replica "
                   "each (cpu,cpu or cuda:0,cuda:1), and over the processes RANK, WORLD_SIZE, "
                   "MASTER_ADDR and MASTER_PORT name; --batch-size is then the whole step's "
                   "and --device is ignored")
      ->delimiter(',');
  fmnist->add_option("--epochs", args->epochs, "epochs, at least 1 (default 3)");
  fmnist->add_option("--batch-size", args->batch_size, "batch size, at least 1 (default 64)");
  fmnist->add_option("--lr", args->options.learning_rate,
                     "initial learning rate, positive (default 2e-3)");
  add_precision_option(*fmnist, args->precision, "train");
  fmnist->add_option("--out", args->options.out, "run directory (default runs/fashion-mnist)");
  fmnist->add_flag("--resume", args->options.resume,
                   "continue from the newest checkpoint in --out");
  fmnist->callback([args] { train_fashion_mnist(*args); });

  CLI::App* eval =
      app.add_subcommand("eval", "evaluate a saved Fashion-MNIST model on the test set");
  auto eval_args = std::make_shared<EvalArgs>();
  eval->add_option("checkpoint", eval_args->checkpoint, "a model.safetensors saved by ember train")
      ->required()
      ->check(CLI::ExistingFile);
  add_device_option(*eval, eval_args->device);
  add_precision_option(*eval, eval_args->precision, "evaluate");
  eval->callback([eval_args] { eval_checkpoint(*eval_args); });
}

}  // namespace ember::cli
