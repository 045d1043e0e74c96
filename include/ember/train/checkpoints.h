// The checkpoints of a run, under <run>/checkpoints/: one folder per epoch ("epoch-3") holding
// model.safetensors (the module's state, loadable by PyTorch) and training.safetensors (the
// optimizer's state, the scheduler's step, the loss scaler's state and where the run stood), the
// last few kept, plus a copy of the best epoch in "best".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/state.h"

namespace ember::train {

/// A loss scaler's state (optim/grad_scaler.h), as GradScaler::load takes it.
struct GradScalerState {
  double scale = 1.0;
  int64_t growth_tracker = 0;
};

/// Where a run stood at the end of an epoch, besides the model.
struct TrainingState {
  int64_t epoch = 0;  ///< the last completed epoch (1-based)
  optim::OptimizerState optimizer;
  optim::OptimizerState scheduler;
  std::optional<int64_t> best_epoch;
  std::optional<double> best_value;
  int64_t epochs_since_best = 0;
  /// The loss scaler's, where the run scales its loss (an f16 autocast run): without it a resumed
  /// run would start again from init_scale and skip the steps that back the scale off.
  std::optional<GradScalerState> grad_scaler;
};

/// Creates dir and its parents; InvalidArgument "[train] cannot create directory <dir>: <reason>"
/// when it cannot (a file in the way, no permission, a read-only file system).
void create_directories_checked(const std::filesystem::path& dir);

class Checkpoints {
 public:
  /// Checkpoints under root (created when needed).
  explicit Checkpoints(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path epoch_dir(int64_t epoch) const;
  std::filesystem::path best_dir() const { return root_ / "best"; }
  static std::filesystem::path model_file(const std::filesystem::path& dir) {
    return dir / "model.safetensors";
  }

  /// The epochs with a complete checkpoint (both files), ascending.
  std::vector<int64_t> epochs() const;
  /// An epoch folder without one of its files (a run stopped while saving, a file deleted).
  struct Incomplete {
    int64_t epoch;
    std::string missing;  ///< "model.safetensors" or "training.safetensors"
  };
  /// The epoch folders that are not complete checkpoints, ascending.
  std::vector<Incomplete> incomplete() const;
  /// Writes state into epoch_dir(state.epoch) (model.safetensors is the caller's).
  void save_state(const TrainingState& state) const;
  /// Reads epoch's training state; InvalidArgument "[checkpoints] ..." naming the file and
  /// entry when it is missing or malformed.
  TrainingState load_state(int64_t epoch) const;
  /// Replaces "best" with a copy of epoch's checkpoint.
  void mark_best(int64_t epoch) const;
  /// Deletes epoch checkpoints older than the newest keep (keep >= 1).
  void prune(int64_t keep) const;
  // Every method throws InvalidArgument "[train] cannot <what> <path>: <reason>" when the file
  // system refuses (never std::filesystem::filesystem_error).

 private:
  /// Every epoch folder under root: its epoch and which of its files exist, ascending.
  struct Folder {
    int64_t epoch;
    bool has_model;
    bool has_state;
  };
  std::vector<Folder> folders() const;

  std::filesystem::path root_;
};

}  // namespace ember::train
