#include "train_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "ember/device.h"
#include "fashion_mnist.h"

namespace ember::cli {
namespace {

struct TrainArgs {
  std::string device;
  fashion_mnist::Options options;
};

Device device_named(const std::string& name) {
  return name.empty() ? Device::default_device() : Device::from_name(name);
}

void add_device_option(CLI::App& command, std::string& device) {
  command.add_option("--device", device,
                     "device name (ndarray, cpu, cuda:0, ...); default: the "
                     "default device");
}

void train_fashion_mnist(TrainArgs& args) {
  args.options.device = device_named(args.device);
  std::printf("training on %s\n", args.options.resolved_device().name().c_str());
  std::printf("test accuracy: %.4f\n", fashion_mnist::run(args.options));
}

void eval_checkpoint(const std::string& device, const std::string& checkpoint) {
  fashion_mnist::Options options;
  options.device = device_named(device);
  fashion_mnist::Cnn model = fashion_mnist::Cnn::init(options.resolved_device());
  record::load(model, checkpoint);
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
  fmnist->add_option("--epochs", args->options.epochs, "epochs (default 3)")
      ->check(CLI::PositiveNumber);
  fmnist->add_option("--batch-size", args->options.batch_size, "batch size (default 64)")
      ->check(CLI::PositiveNumber);
  fmnist->add_option("--lr", args->options.learning_rate, "initial learning rate (default 2e-3)")
      ->check(CLI::PositiveNumber);
  fmnist->add_option("--out", args->options.out, "run directory (default runs/fashion-mnist)");
  fmnist->add_flag("--resume", args->options.resume,
                   "continue from the newest checkpoint in --out");
  fmnist->callback([args] { train_fashion_mnist(*args); });

  CLI::App* eval =
      app.add_subcommand("eval", "evaluate a saved Fashion-MNIST model on the test set");
  auto eval_device = std::make_shared<std::string>();
  auto checkpoint = std::make_shared<std::string>();
  eval->add_option("checkpoint", *checkpoint, "a model.safetensors saved by ember train")
      ->required()
      ->check(CLI::ExistingFile);
  add_device_option(*eval, *eval_device);
  eval->callback([eval_device, checkpoint] { eval_checkpoint(*eval_device, *checkpoint); });
}

}  // namespace ember::cli
