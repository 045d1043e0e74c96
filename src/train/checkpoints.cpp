#include "ember/train/checkpoints.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <system_error>

#include "ember/error.h"
#include "ember/record/safetensors.h"
#include "number_text.h"

namespace ember::train {
namespace {

constexpr std::string_view kEpochPrefix = "epoch-";
constexpr std::string_view kOptimizer = "optimizer.";
constexpr std::string_view kScheduler = "scheduler.";

std::filesystem::path state_file(const std::filesystem::path& dir) {
  return dir / "training.safetensors";
}

double parse_exact(const std::string& text, const std::filesystem::path& file,
                   const std::string& key) {
  const std::optional<double> value = detail::parse_number<double>(text);
  if (!value) {
    throw InvalidArgument("[checkpoints] " + file.string() + ": entry " + key + " = '" + text +
                          "' is not a number");
  }
  return *value;
}

void put_state(record::Record& out, std::string_view prefix, const optim::OptimizerState& state) {
  for (const auto& [name, data] : state.tensors)
    out.tensors.push_back({std::string(prefix) + name, data});
  for (const auto& [name, value] : state.scalars)
    out.metadata[std::string(prefix) + name] = detail::exact_text(value);
}

optim::OptimizerState take_state(const record::Record& in, std::string_view prefix,
                                 const std::filesystem::path& file) {
  optim::OptimizerState state;
  for (const record::NamedData& t : in.tensors) {
    if (t.name.starts_with(prefix)) state.tensors[t.name.substr(prefix.size())] = t.data;
  }
  for (const auto& [key, text] : in.metadata) {
    if (key.starts_with(prefix))
      state.scalars[key.substr(prefix.size())] = parse_exact(text, file, key);
  }
  return state;
}

/// Throws InvalidArgument "[train] cannot <what> <path>: <reason>" when error is set.
void check(const std::error_code& error, std::string_view what, const std::filesystem::path& path) {
  if (error) {
    throw InvalidArgument("[train] cannot " + std::string(what) + " " + path.string() + ": " +
                          error.message());
  }
}

void remove_all_checked(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::remove_all(path, error);
  check(error, "remove", path);
}

}  // namespace

void create_directories_checked(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  check(error, "create directory", dir);
}

Checkpoints::Checkpoints(std::filesystem::path root) : root_(std::move(root)) {}

std::filesystem::path Checkpoints::epoch_dir(int64_t epoch) const {
  return root_ / (std::string(kEpochPrefix) + std::to_string(epoch));
}

std::vector<Checkpoints::Folder> Checkpoints::folders() const {
  std::vector<Folder> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root_, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kEpochPrefix)) continue;
    const std::optional<int64_t> epoch =
        detail::parse_number<int64_t>(std::string_view(name).substr(kEpochPrefix.size()));
    if (!epoch || *epoch < 1) continue;
    found.push_back({*epoch, std::filesystem::exists(model_file(entry.path()), error),
                     std::filesystem::exists(state_file(entry.path()), error)});
  }
  std::sort(found.begin(), found.end(),
            [](const Folder& a, const Folder& b) { return a.epoch < b.epoch; });
  return found;
}

std::vector<int64_t> Checkpoints::epochs() const {
  std::vector<int64_t> complete;
  for (const Folder& folder : folders()) {
    if (folder.has_model && folder.has_state) complete.push_back(folder.epoch);
  }
  return complete;
}

std::vector<Checkpoints::Incomplete> Checkpoints::incomplete() const {
  std::vector<Incomplete> found;
  for (const Folder& folder : folders()) {
    if (!folder.has_model)
      found.push_back({folder.epoch, model_file({}).string()});
    else if (!folder.has_state)
      found.push_back({folder.epoch, state_file({}).string()});
  }
  return found;
}

void Checkpoints::save_state(const TrainingState& state) const {
  record::Record out;
  put_state(out, kOptimizer, state.optimizer);
  put_state(out, kScheduler, state.scheduler);
  out.metadata["learner.epoch"] = std::to_string(state.epoch);
  out.metadata["learner.epochs_since_best"] = std::to_string(state.epochs_since_best);
  if (state.best_epoch) out.metadata["learner.best_epoch"] = std::to_string(*state.best_epoch);
  if (state.best_value) out.metadata["learner.best_value"] = detail::exact_text(*state.best_value);
  if (state.grad_scaler) {
    out.metadata["learner.grad_scale"] = detail::exact_text(state.grad_scaler->scale);
    out.metadata["learner.grad_scaler_growth_tracker"] =
        std::to_string(state.grad_scaler->growth_tracker);
  }
  const std::filesystem::path dir = epoch_dir(state.epoch);
  create_directories_checked(dir);
  record::save_safetensors(out, state_file(dir));
}

TrainingState Checkpoints::load_state(int64_t epoch) const {
  const std::filesystem::path file = state_file(epoch_dir(epoch));
  const record::Record in = record::load_safetensors(file);
  auto number = [&](const std::string& key) -> std::optional<double> {
    const auto it = in.metadata.find(key);
    if (it == in.metadata.end()) return std::nullopt;
    return parse_exact(it->second, file, key);
  };
  TrainingState state;
  state.optimizer = take_state(in, kOptimizer, file);
  state.scheduler = take_state(in, kScheduler, file);
  const std::optional<double> saved_epoch = number("learner.epoch");
  if (saved_epoch != static_cast<double>(epoch)) {
    throw InvalidArgument("[checkpoints] " + file.string() + ": learner.epoch does not say " +
                          std::to_string(epoch));
  }
  state.epoch = epoch;
  state.epochs_since_best = static_cast<int64_t>(number("learner.epochs_since_best").value_or(0));
  if (auto best = number("learner.best_epoch")) state.best_epoch = static_cast<int64_t>(*best);
  state.best_value = number("learner.best_value");
  const std::optional<double> scale = number("learner.grad_scale");
  const std::optional<double> tracker = number("learner.grad_scaler_growth_tracker");
  if (scale.has_value() != tracker.has_value()) {
    throw InvalidArgument("[checkpoints] " + file.string() +
                          ": learner.grad_scale and learner.grad_scaler_growth_tracker come "
                          "together, and only one is there");
  }
  // GradScaler::load checks the values themselves when the learner restores them.
  if (scale) state.grad_scaler = GradScalerState{*scale, static_cast<int64_t>(*tracker)};
  return state;
}

void Checkpoints::mark_best(int64_t epoch) const {
  const std::filesystem::path staging = root_ / "best.tmp";
  remove_all_checked(staging);
  std::error_code error;
  std::filesystem::copy(epoch_dir(epoch), staging, std::filesystem::copy_options::recursive, error);
  check(error, "copy the checkpoint to", staging);
  remove_all_checked(best_dir());
  std::filesystem::rename(staging, best_dir(), error);
  check(error, "rename the checkpoint to", best_dir());
}

void Checkpoints::prune(int64_t keep) const {
  const std::vector<int64_t> all = epochs();
  const auto excess = static_cast<int64_t>(all.size()) - std::max<int64_t>(keep, 1);
  for (int64_t i = 0; i < excess; ++i)
    remove_all_checked(epoch_dir(all[static_cast<std::size_t>(i)]));
}

}  // namespace ember::train
