// The learner: the training and validation loop of a classifier, with the things a run needs
// around it — metrics (loss, accuracy, top-k accuracy, learning rate, items per second), a
// progress display, checkpoints (the last few and the best, by a validation metric) and resuming
// from them, early stopping, metrics as CSV and the curves as an SVG plot.
//
//   train::Learner learner(config, model, optimizer, scheduler);
//   train::FitResult result = learner.fit(train_loader, valid_loader, step);
//
// step(model, batch) → ClassificationOutput {loss, logits, targets} is the model's forward for
// one batch; the learner runs it with recording on for training (model on an autodiff device),
// and under NoGradGuard in eval mode for validation. Files under config.directory:
// metrics.csv, curves.svg, checkpoints/ (see checkpoints.h).
//
// With config.devices set, training is data-parallel (train/data_parallel.h,
// docs/data_parallel.md): a replica of the model per device and per process of the run (RANK,
// WORLD_SIZE, MASTER_ADDR, MASTER_PORT), each on its shard of every batch of the training
// loader (a data::DataLoader, whose batch_size is then the whole step's), the gradients summed
// over all of them; the same program runs on one device or many, in one process or several.
// step then runs on one thread per local replica at once (a function of its arguments is safe).
// Validation runs on replica 0 over the whole validation set in every process, so every process
// takes the same decisions (best, early stopping); the training metrics are this process's
// replicas'. Only process 0 writes files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/autodiff.h"
#include "ember/error.h"
#include "ember/nn/module.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/gradients_params.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/scheduler.h"
#include "ember/record/module_record.h"
#include "ember/train/checkpoints.h"
#include "ember/train/data_parallel.h"
#include "ember/train/early_stopping.h"
#include "ember/train/history.h"
#include "ember/train/metrics.h"
#include "ember/train/progress.h"

namespace ember::train {

struct LearnerConfig {
  int64_t epochs = 1;                    ///< >= 1: the run's last epoch (a resumed run included)
  std::filesystem::path directory;       ///< where the run's files go (created)
  int64_t keep_checkpoints = 2;          ///< epoch checkpoints kept besides "best"; >= 1
  std::string best_metric = "accuracy";  ///< on the validation split
  Better best_is = Better::Higher;
  std::optional<EarlyStopping> early_stopping = std::nullopt;
  int64_t top_k = 0;    ///< > 1 adds top-k accuracy
  bool resume = false;  ///< continue from the newest checkpoint in directory
  /// Loss scaling, for a model trained on an f16 autocast device (optim/grad_scaler.h): enable it
  /// there, leave it off for f32 and bf16. Its scale and growth tracker are checkpointed, so a
  /// resumed run goes on with them.
  optim::GradScalerConfig grad_scaler{.enabled = false};
  /// Data-parallel training over these devices of this process, one replica each (and over the
  /// processes the environment names); empty: the model's own device alone.
  std::vector<Device> devices = {};
  /// Data-parallel: gradients are all-reduced in buckets of about this many bytes.
  std::size_t bucket_bytes = std::size_t{25} << 20;
  std::optional<bool> terminal = std::nullopt;  ///< unset: whether stdout is a terminal
  std::ostream* out = &std::cout;               ///< progress and summary lines
};

struct FitResult {
  int64_t last_epoch = 0;  ///< the last epoch completed
  bool stopped_early = false;
  std::optional<int64_t> best_epoch;
  std::optional<double> best_value;
  History history;
  /// The validation metrics of the last epoch.
  MetricValues last_valid;
};

/// Runs fit for a model M (a module) with an optimizer and a learning-rate scheduler, all owned
/// by the caller: fit updates model, optimizer and scheduler in place.
template <nn::Module M>
class Learner {
 public:
  /// InvalidArgument "[Learner] ..." for epochs or keep_checkpoints below 1, an empty directory,
  /// or an early stopping patience below 1.
  Learner(LearnerConfig config, M& model, optim::Optimizer& optimizer,
          optim::LrScheduler& scheduler)
      : config_(std::move(config)),
        model_(model),
        optimizer_(optimizer),
        scheduler_(scheduler),
        checkpoints_(config_.directory / "checkpoints"),
        best_(config_.best_metric, config_.best_is,
              config_.early_stopping ? config_.early_stopping->min_delta : 0.0),
        progress_(*config_.out, config_.terminal.value_or(Progress::stdout_is_terminal())),
        scaler_(config_.grad_scaler) {
    validate(config_);
  }

  /// Trains from the first epoch (or the one after the newest checkpoint, with resume) to
  /// config.epochs, validating after each; step(const M&, const Batch&) → ClassificationOutput.
  /// Loaders are data::DataLoader (or anything with epoch(index), num_items()).
  template <typename TrainLoader, typename ValidLoader, typename Step>
  FitResult fit(TrainLoader& train_loader, ValidLoader& valid_loader, Step step) {
    create_directories_checked(config_.directory);
    FitResult result;
    const int64_t first = config_.resume ? restore(result.history) + 1 : 1;
    if (!config_.devices.empty()) {
      parallel_.emplace(model_, optimizer_,
                        DataParallelConfig{.devices = config_.devices,
                                           .bucket_bytes = config_.bucket_bytes,
                                           .grad_scaler = config_.grad_scaler});
    }
    for (int64_t epoch = first; epoch <= config_.epochs; ++epoch) {
      const MetricValues train = parallel_ ? run_parallel_training(epoch, train_loader, step)
                                           : run_training(epoch, train_loader, step);
      result.last_valid = validate_on_replica_zero(epoch, valid_loader, step);
      result.history.add({epoch, "train", train});
      result.history.add({epoch, "valid", result.last_valid});
      result.last_epoch = epoch;
      end_epoch(epoch, result);
      if (config_.early_stopping && best_.epochs_since_best() >= config_.early_stopping->patience) {
        *config_.out << "early stopping: no improvement of valid " << config_.best_metric << " for "
                     << config_.early_stopping->patience << " epochs\n";
        result.stopped_early = true;
        break;
      }
    }
    result.best_epoch = best_.best_epoch();
    result.best_value = best_.best_value();
    return result;
  }

 private:
  static void validate(const LearnerConfig& c) {
    if (c.epochs < 1 || c.keep_checkpoints < 1 || c.directory.empty() ||
        (c.early_stopping && c.early_stopping->patience < 1)) {
      throw InvalidArgument(
          "[Learner] epochs, keep_checkpoints and early_stopping.patience must be >= 1, and "
          "directory set (got epochs " +
          std::to_string(c.epochs) + ", keep_checkpoints " + std::to_string(c.keep_checkpoints) +
          ", directory '" + c.directory.string() + "')");
    }
  }

  std::string label(int64_t epoch, const char* split) const {
    return "epoch " + std::to_string(epoch) + "/" + std::to_string(config_.epochs) + " " + split;
  }

  template <typename Loader, typename Step>
  MetricValues run_training(int64_t epoch, Loader& loader, Step& step) {
    nn::train(model_);
    EpochMetrics metrics(config_.top_k);
    progress_.start(label(epoch, "train"), static_cast<int64_t>(loader.num_items()));
    for (auto& batch : loader.epoch(static_cast<std::size_t>(epoch - 1))) {
      const double lr = scheduler_.lr();
      const ClassificationOutput output = step(static_cast<const M&>(model_), batch);
      // A disabled scaler passes the loss and the gradients through: one path for every precision.
      const Gradients grads = scaler_.scale(output.loss).backward();
      scaler_.step(optimizer_, model_, optim::GradientsParams::from(model_, grads), lr);
      scaler_.update();
      scheduler_.step();
      metrics.set_learning_rate(lr);
      metrics.update(output);
      progress_.update(metrics.items(), metrics.values());
    }
    progress_.finish(metrics.values());
    return metrics.values();
  }

  /// run_training, data-parallel: every local replica on its shard of each batch.
  template <typename Loader, typename Step>
  MetricValues run_parallel_training(int64_t epoch, Loader& loader, Step& step) {
    if constexpr (requires(const Device& d) { loader.sharded(std::size_t{}, std::size_t{}, d); }) {
      collective::Group& group = parallel_->group();
      using Shard =
          decltype(loader.sharded(std::size_t{}, std::size_t{}, std::declval<const Device&>()));
      std::vector<Shard> shards;
      std::size_t items = 0;
      for (int i = 0; i < group.local_size(); ++i) {
        shards.push_back(loader.sharded(static_cast<std::size_t>(group.first_rank() + i),
                                        static_cast<std::size_t>(group.size()),
                                        group.communicator(i).device()));
        items += shards.back().num_items();
      }
      parallel_->set_training(true);
      EpochMetrics metrics(config_.top_k);
      progress_.start(label(epoch, "train"), static_cast<int64_t>(items));
      run_shards(shards, static_cast<std::size_t>(epoch - 1), [&](const auto& batches) {
        const double lr = scheduler_.lr();
        const std::vector<ClassificationOutput> outputs = parallel_->step(batches, step, lr);
        scheduler_.step();
        metrics.set_learning_rate(lr);
        for (const ClassificationOutput& output : outputs)
          metrics.update(output);
        progress_.update(metrics.items(), metrics.values());
      });
      progress_.finish(metrics.values());
      return metrics.values();
    } else {
      throw InvalidArgument(
          "[Learner] data-parallel training (LearnerConfig::devices) shards the training "
          "loader by rank: it must be a data::DataLoader (or have its sharded())");
    }
  }

  /// f(batches) for every step of epoch index: batches[i] is shard i's batch.
  template <typename Shard, typename F>
  static void run_shards(std::vector<Shard>& shards, std::size_t index, F&& f) {
    using Range = decltype(shards.front().epoch(index));
    std::vector<Range> epochs;
    epochs.reserve(shards.size());  // the iterators point into them
    for (Shard& shard : shards)
      epochs.push_back(shard.epoch(index));
    using Iterator = decltype(epochs.front().begin());
    std::vector<Iterator> at;
    for (Range& range : epochs)
      at.push_back(range.begin());
    using Batch = std::remove_reference_t<decltype(*at.front())>;
    for (;;) {
      std::vector<Batch*> batches;
      for (Iterator& it : at) {
        if (it == std::default_sentinel) return;  // the shards have as many batches
        batches.push_back(&*it);
      }
      f(batches);
      for (Iterator& it : at)
        ++it;
    }
  }

  /// run_validation on the model, whose device data-parallel training may have changed to
  /// devices[0]: a DataLoader then builds its batches there.
  template <typename Loader, typename Step>
  MetricValues validate_on_replica_zero(int64_t epoch, Loader& loader, Step& step) {
    if constexpr (requires(const Device& d) { loader.sharded(std::size_t{}, std::size_t{}, d); }) {
      if (parallel_) {
        auto moved = loader.sharded(0, 1, parallel_->group().communicator(0).device());
        return run_validation(epoch, moved, step);
      }
    }
    return run_validation(epoch, loader, step);
  }

  template <typename Loader, typename Step>
  MetricValues run_validation(int64_t epoch, Loader& loader, Step& step) {
    nn::eval(model_);
    const NoGradGuard no_grad;
    EpochMetrics metrics(config_.top_k);
    progress_.start(label(epoch, "valid"), static_cast<int64_t>(loader.num_items()));
    for (auto& batch : loader.epoch(static_cast<std::size_t>(epoch - 1))) {
      metrics.update(step(static_cast<const M&>(model_), batch));
      progress_.update(metrics.items(), metrics.values());
    }
    progress_.finish(metrics.values());
    nn::train(model_);
    return metrics.values();
  }

  /// Checkpoint, best, pruning, metrics.csv and curves.svg after epoch.
  void end_epoch(int64_t epoch, const FitResult& result) {
    const std::optional<double> value = result.history.value(epoch, "valid", config_.best_metric);
    if (!value) {
      throw InvalidArgument("[Learner] no validation metric '" + config_.best_metric + "'");
    }
    const bool is_best = best_.observe(epoch, *value);
    // Data-parallel: the processes' replicas are identical; process 0 writes for all of them.
    if (parallel_ && parallel_->group().process().rank != 0) return;
    record::save(model_, make_epoch_dir(epoch));
    checkpoints_.save_state({epoch, optimizer_.state(), scheduler_.state(), best_.best_epoch(),
                             best_.best_value(), best_.epochs_since_best(), scaler_state()});
    if (is_best) checkpoints_.mark_best(epoch);
    checkpoints_.prune(config_.keep_checkpoints);
    result.history.write_csv(config_.directory / "metrics.csv");
    write_svg_plot(result.history, config_.directory / "curves.svg");
  }

  /// The loss scaler's state, when the run scales its loss.
  std::optional<GradScalerState> scaler_state() const {
    if (!config_.grad_scaler.enabled) return std::nullopt;
    return GradScalerState{scaler_.current_scale(), scaler_.growth_tracker()};
  }

  /// Creates epoch's checkpoint folder and returns its model file.
  std::filesystem::path make_epoch_dir(int64_t epoch) const {
    create_directories_checked(checkpoints_.epoch_dir(epoch));
    return Checkpoints::model_file(checkpoints_.epoch_dir(epoch));
  }

  /// Loads the newest complete checkpoint into model, optimizer and scheduler; returns its epoch
  /// (0 when there is none: a fresh start). Says on the console which folders it skipped, and
  /// when it starts afresh.
  int64_t restore(History& history) {
    for (const Checkpoints::Incomplete& skipped : checkpoints_.incomplete()) {
      *config_.out << "resume: skipping " << checkpoints_.epoch_dir(skipped.epoch).string()
                   << ", which lacks " << skipped.missing << '\n';
    }
    const std::vector<int64_t> epochs = checkpoints_.epochs();
    if (epochs.empty()) {
      *config_.out << "resume: no complete checkpoint in " << checkpoints_.root().string()
                   << "; training from epoch 1\n";
      return 0;
    }
    const int64_t epoch = epochs.back();
    const TrainingState state = checkpoints_.load_state(epoch);
    record::load(model_, Checkpoints::model_file(checkpoints_.epoch_dir(epoch)));
    optimizer_.load_state(state.optimizer);
    scheduler_.load_state(state.scheduler);
    best_.restore(state.best_epoch, state.best_value, state.epochs_since_best);
    restore_scaler(state.grad_scaler);
    const std::filesystem::path csv = config_.directory / "metrics.csv";
    if (std::filesystem::exists(csv)) {
      history = History::read_csv(csv);
      history.truncate_after(epoch);
    }
    *config_.out << "resuming after epoch " << epoch << " from " << checkpoints_.root().string()
                 << '\n';
    return epoch;
  }

  /// The scaler where the run scales its loss: from the checkpoint, or from init_scale (and said
  /// so) when the checkpoint has none (a run that did not scale its loss before).
  void restore_scaler(const std::optional<GradScalerState>& saved) {
    if (!config_.grad_scaler.enabled) return;
    if (saved) {
      scaler_.load(saved->scale, saved->growth_tracker);
    } else {
      *config_.out << "resume: the checkpoint holds no loss scale; starting from init_scale "
                   << config_.grad_scaler.init_scale << '\n';
    }
  }

  LearnerConfig config_;
  M& model_;
  optim::Optimizer& optimizer_;
  optim::LrScheduler& scheduler_;
  Checkpoints checkpoints_;
  BestTracker best_;
  Progress progress_;
  optim::GradScaler scaler_;
  std::optional<DataParallel<M>> parallel_;
};

}  // namespace ember::train
