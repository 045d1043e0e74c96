// Data-parallel training (docs/data_parallel.md): one replica of a model per device, every
// replica stepping on its shard of the batch, gradients summed over the ranks in buckets while
// backward runs (GradientSync), the optimizer step on every replica, so that the replicas stay
// identical. The devices are this process's; the processes of a run (RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT) join through collective::Group. The Learner uses it when
// LearnerConfig::devices is set; it can also drive a loop of one's own:
//
//   train::DataParallel dp(model, optimizer, {.devices = {Device::cpu(), Device::cpu()}});
//   std::vector<Batch*> batches = ...;  // one shard per local replica
//   std::vector<ClassificationOutput> out = dp.step(batches, step_fn, lr);
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "ember/collective.h"
#include "ember/error.h"
#include "ember/gradient_hook.h"
#include "ember/nn/module.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/optimizer.h"
#include "ember/tensor_ops.h"
#include "ember/train/gradient_sync.h"
#include "ember/train/metrics.h"

namespace ember::train {

struct DataParallelConfig {
  /// This process's devices, one replica (and one rank) each; the same device listed twice is
  /// two ranks. Autodiff is turned on for each.
  std::vector<Device> devices;
  /// Gradients are all-reduced in buckets of about this many bytes (PyTorch DDP's default).
  std::size_t bucket_bytes = std::size_t{25} << 20;
  /// The group's timeout: a rank or process that does not come is an ExecutionError after it.
  collective::GroupOptions group{};
  /// Each replica's loss scaler (optim/grad_scaler.h), off by default.
  optim::GradScalerConfig grad_scaler{.enabled = false};
};

/// Replicas of a model M, their optimizers and their group.
template <nn::Module M>
class DataParallel {
 public:
  /// model becomes replica 0, moved to devices[0] (with autodiff), and optimizer its optimizer;
  /// the others are copies on the other devices, with clones of optimizer. Joins the processes
  /// the environment names, then every replica takes global rank 0's params and buffers.
  /// InvalidArgument "[DataParallel] ..." for an empty device list.
  DataParallel(M& model, optim::Optimizer& optimizer, DataParallelConfig config)
      : config_(std::move(config)), group_(make_group(config_)) {
    model = nn::to_device(std::move(model), config_.devices.front());
    replicas_.push_back(&model);
    optimizers_.push_back(&optimizer);
    for (std::size_t i = 1; i < config_.devices.size(); ++i) {
      copies_.push_back(nn::to_device(model, config_.devices[i]));
      replicas_.push_back(&copies_.back());
      clones_.push_back(optimizer.clone());
      optimizers_.push_back(clones_.back().get());
    }
    for (std::size_t i = 0; i < config_.devices.size(); ++i)
      scalers_.emplace_back(config_.grad_scaler);
    synchronize(true);
  }

  collective::Group& group() { return group_; }
  /// Replicas in this process (its devices).
  int local_size() const { return static_cast<int>(replicas_.size()); }
  const M& replica(int local_rank) const {
    return *replicas_.at(static_cast<std::size_t>(local_rank));
  }
  /// nn::train (true) or nn::eval (false) on every replica.
  void set_training(bool training) {
    for (M* replica : replicas_)
      training ? nn::train(*replica) : nn::eval(*replica);
  }

  /// One step: on one thread per replica (so step is called from several threads at once, as
  /// the DataLoader's batcher may be), out_i = step(replica_i, *batches[i]) with recording on,
  /// its loss weighted by the replica's share of the items of every rank's batches (so the summed
  /// gradients are those of the mean over the whole batch), backward with the gradients summed
  /// over the ranks as they come, and the optimizer step with learning rate lr. Buffers (batch
  /// norm's statistics) then take global rank 0's values. Returns every out_i (unweighted).
  template <typename Batch, typename Step>
  std::vector<ClassificationOutput> step(const std::vector<Batch*>& batches, Step& step,
                                         double lr) {
    if (batches.size() != replicas_.size()) {
      throw InvalidArgument("[DataParallel] " + std::to_string(batches.size()) + " batches for " +
                            std::to_string(replicas_.size()) + " replicas");
    }
    std::vector<ClassificationOutput> outputs(replicas_.size());
    group_.run([&](collective::Communicator& comm) {
      const auto i = static_cast<std::size_t>(comm.rank() - group_.first_rank());
      outputs[i] = step(static_cast<const M&>(*replicas_[i]), *batches[i]);
      step_replica(comm, i, outputs[i], lr);
    });
    synchronize(false);
    return outputs;
  }

 private:
  static collective::Group make_group(DataParallelConfig& config) {
    if (config.devices.empty()) {
      throw InvalidArgument("[DataParallel] the device list is empty");
    }
    for (Device& device : config.devices)
      device = device.autodiff();
    return collective::Group::create(config.devices, config.group);
  }

  void step_replica(collective::Communicator& comm, std::size_t i,
                    const ClassificationOutput& output, double lr) {
    M& replica = *replicas_[i];
    const int64_t items = output.targets.dims()[0];
    const TensorHandle count = ops::from_data(TensorData(std::vector<int64_t>{items}, Shape{1}),
                                              comm.device(), TensorKind::Int);
    const auto total = ops::into_data(comm.all_reduce(count, collective::ReduceOp::Sum))
                           .template to_vector<int64_t>()
                           .front();
    const TensorHandle weighted = ops::mul_scalar(
        output.loss.handle(), static_cast<double>(items) / static_cast<double>(total));
    GradientSync sync(comm, nn::named_parameters(replica), config_.bucket_bytes);
    ops::backward(scalers_[i].scale(weighted), sync.hook());
    scalers_[i].step(*optimizers_[i], replica, sync.finish(), lr);
    scalers_[i].update();
  }

  /// Every replica's buffers (and params, when with_params) from global rank 0.
  void synchronize(bool with_params) {
    if (!with_params && nn::named_buffers(*replicas_.front()).empty()) return;
    group_.run([&](collective::Communicator& comm) {
      const auto i = static_cast<std::size_t>(comm.rank() - group_.first_rank());
      BroadcastVisitor visitor(comm, with_params);
      nn::visit(*replicas_[i], visitor);
    });
  }

  /// Replaces each param and buffer by global rank 0's.
  struct BroadcastVisitor final : nn::ModuleVisitor {
    BroadcastVisitor(collective::Communicator& comm, bool with_params)
        : comm(comm), with_params(with_params) {}
    void param(const std::string&, nn::ParamBase& p) override {
      if (with_params) p.assign(comm.broadcast(p.handle(), 0));
    }
    void buffer(const std::string&, nn::BufferBase& b) override {
      b.assign(comm.broadcast(b.handle(), 0));
    }
    collective::Communicator& comm;
    bool with_params;
  };

  DataParallelConfig config_;
  collective::Group group_;
  std::vector<M*> replicas_;
  std::deque<M> copies_;  // replicas 1..: a deque, so that their addresses stay put
  std::vector<optim::Optimizer*> optimizers_;
  std::vector<std::unique_ptr<optim::Optimizer>> clones_;
  std::vector<optim::GradScaler> scalers_;
};

}  // namespace ember::train
