// Group and its host communicators: the ranks of a process meet in a Rendezvous (shared memory);
// the rank that completes it runs the collective on every local input and, across processes,
// on the process's partial result through the ProcessLink.
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "collective/buffer_pool.h"
#include "collective/host_data.h"
#include "collective/process_link.h"
#include "collective/rendezvous.h"
#include "ember/error.h"
#include "ember/interop.h"
#include "ember/tensor_ops.h"

namespace ember::collective {

class HostCommunicator;

class GroupState {
 public:
  GroupState(std::vector<Device> devices, const ProcessInfo& process, GroupOptions options);

  ProcessInfo process;
  std::vector<Device> devices;
  Rendezvous rendezvous;
  std::unique_ptr<ProcessLink> link;  ///< null in a single process
  std::shared_ptr<BufferPool> pool = std::make_shared<BufferPool>();
  std::vector<std::unique_ptr<HostCommunicator>> communicators;

  int local_size() const { return static_cast<int>(devices.size()); }
  int size() const { return local_size() * process.world_size; }
  int first_rank() const { return process.rank * local_size(); }
};

namespace {

/// The local inputs reduced in rank order (f16 and bf16 in f32), then across processes.
TensorData reduce_all(GroupState& group, std::vector<TensorData>& inputs, ReduceOp op) {
  const DType dtype = inputs.front().dtype();
  const DType wide = accumulation_dtype(dtype);
  TensorData acc = dtype == wide ? std::move(inputs.front()) : inputs.front().convert(wide);
  for (std::size_t i = 1; i < inputs.size(); ++i)
    reduce_into(acc, dtype == wide ? inputs[i] : inputs[i].convert(wide), op);
  if (group.link) group.link->all_reduce(acc, op == ReduceOp::Max ? ReduceOp::Max : ReduceOp::Sum);
  if (op == ReduceOp::Mean) divide(acc, group.size());
  return dtype == wide ? acc : acc.convert(dtype);
}

/// The local ranks' outputs, all of them data.
std::vector<Rendezvous::Output> same_for_all(GroupState& group, TensorData data) {
  return std::vector<Rendezvous::Output>(static_cast<std::size_t>(group.local_size()),
                                         group.pool->output(std::move(data)));
}

std::string label(const Device& device) {
  std::ostringstream out;
  out << device;
  return out.str();
}

}  // namespace

class HostCommunicator final : public Communicator {
 public:
  HostCommunicator(GroupState& group, int local_rank) : group_(group), local_(local_rank) {}

  int rank() const override { return group_.first_rank() + local_; }
  int size() const override { return group_.size(); }
  const Device& device() const override { return group_.devices[static_cast<std::size_t>(local_)]; }

  TensorHandle all_reduce(const TensorHandle& x, ReduceOp op) override {
    check_reducible("all_reduce", x.dtype(), op);
    return run({"all_reduce", static_cast<int>(op), x.shape(), x.dtype()}, x,
               [&](auto& inputs) { return same_for_all(group_, reduce_all(group_, inputs, op)); });
  }

  TensorHandle broadcast(const TensorHandle& x, int root) override {
    if (root < 0 || root >= size()) {
      throw InvalidArgument("[broadcast] root " + std::to_string(root) + " is not a rank of a " +
                            "group of " + std::to_string(size()));
    }
    return run({"broadcast", root, x.shape(), x.dtype()}, x, [&](auto& inputs) {
      const int local_root = root - group_.first_rank();
      const bool here = local_root >= 0 && local_root < group_.local_size();
      TensorData value = std::move(inputs[here ? static_cast<std::size_t>(local_root) : 0]);
      if (group_.link) group_.link->broadcast(value, root / group_.local_size());
      return same_for_all(group_, std::move(value));
    });
  }

  TensorHandle reduce_scatter(const TensorHandle& x, ReduceOp op) override {
    check_reducible("reduce_scatter", x.dtype(), op);
    check_rows("reduce_scatter", x);
    if (x.shape()[0] % size() != 0) {
      throw InvalidArgument("[reduce_scatter] dim 0 of " + describe_shape(x) +
                            " is not a multiple of the group's " + std::to_string(size()) +
                            " ranks");
    }
    return run({"reduce_scatter", static_cast<int>(op), x.shape(), x.dtype()}, x,
               [&](auto& inputs) {
                 const TensorData all = reduce_all(group_, inputs, op);
                 std::vector<Rendezvous::Output> parts;
                 for (int i = 0; i < group_.local_size(); ++i) {
                   parts.push_back(group_.pool->output(rows(all, group_.first_rank() + i, size())));
                 }
                 return parts;
               });
  }

  TensorHandle all_gather(const TensorHandle& x) override {
    check_rows("all_gather", x);
    return run({"all_gather", 0, x.shape(), x.dtype()}, x, [&](auto& inputs) {
      TensorData all = concat_rows(inputs);
      if (group_.link) all = concat_rows(group_.link->all_gather(all));
      return same_for_all(group_, std::move(all));
    });
  }

 private:
  static std::string describe_shape(const TensorHandle& x) {
    std::ostringstream out;
    out << x.shape();
    return out.str();
  }

  static void check_rows(const std::string& name, const TensorHandle& x) {
    if (x.shape().rank() == 0) throw InvalidArgument("[" + name + "] needs a tensor of rank >= 1");
  }

  /// This rank's output of call, after the local ranks (and the processes) checked that they
  /// agree on it; combine runs once per process, on the rank that arrives last.
  TensorHandle run(const Call& call, const TensorHandle& x, const Rendezvous::Combine& combine) {
    if (!(x.device() == device())) {
      throw InvalidArgument("[" + call.name + "] rank " + std::to_string(rank()) +
                            "'s tensor is on " + label(x.device()) + ", its communicator's " +
                            "device is " + label(device()));
    }
    const Rendezvous::Combine checked = [&](std::vector<TensorData>& inputs) {
      if (group_.link) group_.link->check_same_call(call);
      std::vector<Rendezvous::Output> outputs = combine(inputs);
      for (TensorData& input : inputs)
        group_.pool->give_back(std::move(input).into_bytes());
      return outputs;
    };
    return tensor_over(
        group_.rendezvous.exchange(local_, call, group_.pool->host_copy(x), checked));
  }

  /// A tensor on this rank's device holding out: over its memory where the device computes on
  /// host memory (cpu, flex: no copy, and the ranks of one device share it), else a copy.
  TensorHandle tensor_over(const Rendezvous::Output& out) const {
    if (out->shape().rank() == 0) {
      return ops::from_data(*out, TensorCreationOptions(device()).with_dtype(out->dtype()),
                            kind_of(out->dtype()));
    }
    // Note: ember never writes into a buffer over external memory, so the const cast is safe.
    return interop::from_external({.data = const_cast<std::byte*>(out->bytes().data()),
                                   .shape = out->shape(),
                                   .dtype = out->dtype(),
                                   .strides = {},
                                   .deleter = [keep = out](void*) {}},
                                  device());
  }

  GroupState& group_;
  int local_;
};

GroupState::GroupState(std::vector<Device> devices_, const ProcessInfo& process_,
                       GroupOptions options)
    : process(process_),
      devices(std::move(devices_)),
      rendezvous(static_cast<int>(devices.size()), options.timeout) {
  if (devices.empty()) throw InvalidArgument("[collective] a group needs at least one device");
  if (process.world_size < 1 || process.rank < 0 || process.rank >= process.world_size) {
    throw InvalidArgument("[collective] process rank " + std::to_string(process.rank) +
                          " is not in [0, " + std::to_string(process.world_size) + ")");
  }
  if (process.world_size > 1) {
    link = connect_processes(process, options.timeout);
    // Ranks are numbered process by process: every process must bring as many devices.
    link->check_same_call({"collective", local_size(), Shape{}, DType::F32});
  }
  for (int i = 0; i < local_size(); ++i)
    communicators.push_back(std::make_unique<HostCommunicator>(*this, i));
}

Group Group::create(std::vector<Device> devices, GroupOptions options) {
  return create(std::move(devices), ProcessInfo::from_environment(), options);
}

Group Group::create(std::vector<Device> devices, const ProcessInfo& process, GroupOptions options) {
  return Group(std::make_unique<GroupState>(std::move(devices), process, options));
}

Group::Group(std::unique_ptr<GroupState> state) : state_(std::move(state)) {}
Group::Group(Group&&) noexcept = default;
Group& Group::operator=(Group&&) noexcept = default;
Group::~Group() = default;

int Group::size() const {
  return state_->size();
}
int Group::local_size() const {
  return state_->local_size();
}
int Group::first_rank() const {
  return state_->first_rank();
}
const ProcessInfo& Group::process() const {
  return state_->process;
}

Communicator& Group::communicator(int local_rank) {
  if (local_rank < 0 || local_rank >= local_size()) {
    throw InvalidArgument("[collective] local rank " + std::to_string(local_rank) +
                          " is not in [0, " + std::to_string(local_size()) + ")");
  }
  return *state_->communicators[static_cast<std::size_t>(local_rank)];
}

void Group::run(const std::function<void(Communicator&)>& f) {
  std::mutex mutex;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  for (int i = 0; i < local_size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        f(communicator(i));
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!first) {
          first = std::current_exception();
          // The others may be waiting for this rank in a collective: they must not hang.
          state_->rendezvous.abort("local rank " + std::to_string(i) + " failed");
        }
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace ember::collective
