// Saving and loading a module's state (its params and buffers, nn::state) as a safetensors record
// keyed by dotted name ("fc1.weight"). Modules use PyTorch's member names and layouts, so a file
// saved from a PyTorch model's state_dict loads into the same architecture built with ember, and
// the other way round:
//
//   record::save(model, "model.safetensors");
//   Mlp restored = MlpConfig{...}.init(device);
//   record::load(restored, "model.safetensors");
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ember/nn/module.h"
#include "ember/record/safetensors.h"

namespace ember::record {

struct LoadOptions {
  /// Ignore tensors of the record that the module does not have (by default they are an error,
  /// since they usually mean the architectures differ).
  bool allow_extra = false;
};

namespace detail {
Record state_record(const std::vector<nn::NamedTensor>& state,
                    std::map<std::string, std::string> metadata);
void load_state(const std::function<void(nn::ModuleVisitor&)>& walk, const Record& record,
                std::string_view source, LoadOptions options);
}  // namespace detail

/// model's params and buffers, by dotted name, read back from their devices.
template <nn::Module M>
Record to_record(const M& model, std::map<std::string, std::string> metadata = {}) {
  return detail::state_record(nn::state(model), std::move(metadata));
}

/// Sets model's params and buffers from record, all or nothing. Every param and buffer needs a
/// tensor of its name and shape, of the same kind: a float tensor for a param or float buffer (its
/// dtype converted to the param's), an int tensor for an int buffer (converted to the buffer's
/// int dtype, wrapping), a bool tensor for a bool buffer. Tensors the model lacks are an error
/// unless options.allow_extra. Everything is checked before anything is assigned: on
/// InvalidArgument "[record::load] <source>: ..." naming the tensors at fault, model is unchanged.
/// Loaded values go to each param's current device and dtype, and trainable params stay
/// trainable (on an autodiff device they require grad).
template <nn::Module M>
void load_record(M& model, const Record& record, LoadOptions options = {},
                 std::string_view source = "record") {
  detail::load_state([&](nn::ModuleVisitor& v) { nn::visit(model, v); }, record, source, options);
}

/// Saves model's state to a safetensors file at path, atomically (see save_safetensors), with
/// metadata in its header.
template <nn::Module M>
void save(const M& model, const std::filesystem::path& path,
          std::map<std::string, std::string> metadata = {}) {
  save_safetensors(to_record(model, std::move(metadata)), path);
}

/// Loads model's state from the safetensors file at path (see load_safetensors and load_record).
template <nn::Module M>
void load(M& model, const std::filesystem::path& path, LoadOptions options = {}) {
  load_record(model, load_safetensors(path), options, path.string());
}

}  // namespace ember::record
