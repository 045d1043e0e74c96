// `ember onnx`: info lists a model's signature, weights and ops; run feeds it .npy files on a
// device and writes each output as DIR/<output name>.npy.
#include "onnx_command.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/record/numpy.h"
#include "ember/record/safetensors.h"

namespace ember::cli {
namespace {

namespace fs = std::filesystem;

struct OnnxArguments {
  std::string model;
  std::string weights;  ///< info --save-weights
  std::string device;
  std::vector<std::string> inputs;  ///< name=file.npy
  std::string output;
};

std::string dims_text(const std::vector<std::optional<int64_t>>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += dims[i] ? std::to_string(*dims[i]) : "?";
  }
  return text + "]";
}

void print_values(std::ostream& out, const char* title,
                  const std::vector<onnx::ValueInfo>& values) {
  out << title << ":\n";
  for (const onnx::ValueInfo& value : values)
    out << "  " << value.name << "  " << value.dtype << "  " << dims_text(value.dims) << "\n";
}

/// The tensors given as name=file.npy, by name.
std::map<std::string, TensorData> read_inputs(const std::vector<std::string>& given) {
  std::map<std::string, TensorData> inputs;
  for (const std::string& entry : given) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0)
      throw InvalidArgument("[onnx run] --input '" + entry + "' is not name=file.npy");
    const std::string name = entry.substr(0, equals);
    if (!inputs.emplace(name, record::load_npy(entry.substr(equals + 1))).second)
      throw InvalidArgument("[onnx run] input '" + name + "' is given twice");
  }
  return inputs;
}

/// An output's file in dir: its name must be a plain file name (a model's names are outside
/// text, and "../x" must not write outside dir).
fs::path output_file(const fs::path& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw InvalidArgument("[onnx run] output name '" + name + "' is not a file name");
  }
  return dir / (name + ".npy");
}

void run_model(const std::string& path, const std::string& device_name,
               const std::vector<std::string>& given, const std::string& out_dir) {
  const onnx::Model model = onnx::Model::load(path);
  std::map<std::string, TensorData> by_name = read_inputs(given);
  std::vector<TensorData> inputs;
  for (const onnx::ValueInfo& input : model.inputs()) {
    auto found = by_name.find(input.name);
    if (found == by_name.end())
      throw InvalidArgument("[onnx run] the model's input '" + input.name + "' is not given");
    inputs.push_back(std::move(found->second));
    by_name.erase(found);
  }
  if (!by_name.empty())
    throw InvalidArgument("[onnx run] the model has no input '" + by_name.begin()->first + "'");
  const Device device =
      device_name.empty() ? Device::default_device() : Device::from_name(device_name);
  const std::vector<onnx::ValueInfo> outputs = model.outputs();
  std::vector<fs::path> files;
  for (const onnx::ValueInfo& output : outputs)
    files.push_back(output_file(out_dir, output.name));
  const std::vector<TensorData> results = model.run(device, inputs);
  fs::create_directories(out_dir);
  for (std::size_t k = 0; k < results.size(); ++k) {
    record::save_npy(files[k], results[k]);
    std::cout << files[k].string() << "  " << results[k].dtype() << "  " << results[k].shape()
              << "\n";
  }
}

}  // namespace

void print_onnx_info(std::ostream& out, const onnx::Model& model) {
  out << "opset: " << model.opset() << "\n";
  print_values(out, "inputs", model.inputs());
  print_values(out, "outputs", model.outputs());
  std::size_t bytes = 0;
  for (const record::NamedData& weight : model.initializers())
    bytes += weight.data.bytes().size();
  out << "initializers: " << model.initializers().size() << " tensors, " << bytes << " bytes\n";
  const std::vector<onnx::OpCount> ops = model.op_counts();
  std::size_t unsupported = 0;
  out << "ops:\n";
  for (const onnx::OpCount& op : ops) {
    out << "  " << op.op_type << "  " << op.count << (op.supported ? "" : "  (not supported)")
        << "\n";
    unsupported += op.supported ? 0 : 1;
  }
  out << (unsupported == 0 ? "ember imports every op of this model\n"
                           : "ember lacks " + std::to_string(unsupported) + " of its " +
                                 std::to_string(ops.size()) + " op types\n");
}

void add_onnx_command(CLI::App& app) {
  CLI::App* onnx = app.add_subcommand("onnx", "Inspect and run ONNX models");
  onnx->require_subcommand(1);
  auto arguments = std::make_shared<OnnxArguments>();  // shared with the callbacks

  CLI::App* info = onnx->add_subcommand("info", "List a model's inputs, outputs, weights and ops");
  info->add_option("MODEL", arguments->model, "the .onnx file")->required();
  info->add_option("--save-weights", arguments->weights,
                   "also write the initializers to this .safetensors file");
  info->callback([arguments] {
    const onnx::Model model = onnx::Model::load(arguments->model);
    print_onnx_info(std::cout, model);
    if (!arguments->weights.empty())
      record::save_safetensors({model.initializers(), {}}, arguments->weights);
  });

  CLI::App* run = onnx->add_subcommand("run", "Run a model on a device, outputs as .npy files");
  run->add_option("MODEL", arguments->model, "the .onnx file")->required();
  run->add_option("--device", arguments->device,
                  "cpu, flex, ndarray, cuda[:i], ... (default: the default device)");
  run->add_option("--input", arguments->inputs, "name=file.npy, one per model input");
  run->add_option("--output", arguments->output, "the outputs' folder: DIR/<output name>.npy")
      ->required();
  run->callback([arguments] {
    run_model(arguments->model, arguments->device, arguments->inputs, arguments->output);
  });
}

}  // namespace ember::cli
