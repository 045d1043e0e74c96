#include "ember/train/gradient_sync.h"

#include <utility>

#include "ember/autodiff.h"
#include "ember/tensor_ops.h"

namespace ember::train {
namespace {

std::size_t bytes_of(const TensorHandle& x) {
  return static_cast<std::size_t>(x.shape().num_elements()) * dtype_size(x.dtype());
}

}  // namespace

GradientSync::GradientSync(collective::Communicator& comm,
                           const std::vector<nn::NamedTensor>& params, std::size_t bucket_bytes)
    : comm_(comm) {
  std::size_t bucket_size = 0;
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const std::optional<uint64_t> leaf = ops::leaf_id(it->tensor);
    if (!leaf) continue;  // frozen: no gradient
    const bool fits = !buckets_.empty() && bucket_size + bytes_of(it->tensor) <= bucket_bytes &&
                      slots_[buckets_.back().slots.front()].param.dtype() == it->tensor.dtype();
    if (!fits) {
      buckets_.emplace_back();
      bucket_size = 0;
    }
    bucket_size += bytes_of(it->tensor);
    slot_of_leaf_[*leaf] = slots_.size();
    buckets_.back().slots.push_back(slots_.size());
    slots_.push_back({it->name, it->tensor, TensorHandle(), buckets_.size() - 1});
  }
  worker_ = std::thread([this] { work(); });
}

GradientSync::~GradientSync() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  queued_.notify_all();
  worker_.join();
}

GradientHook GradientSync::hook() {
  return [this](uint64_t leaf_id, const TensorHandle& grad) { on_gradient(leaf_id, grad); };
}

void GradientSync::on_gradient(uint64_t leaf_id, const TensorHandle& grad) {
  const auto it = slot_of_leaf_.find(leaf_id);
  if (it == slot_of_leaf_.end()) return;  // a leaf that is not one of the params
  const std::lock_guard lock(mutex_);
  slots_[it->second].grad = grad;
  ++buckets_[slots_[it->second].bucket].ready;
  send_ready();
}

void GradientSync::send_ready() {
  while (next_to_send_ < buckets_.size() &&
         buckets_[next_to_send_].ready == buckets_[next_to_send_].slots.size()) {
    queue_.push_back(next_to_send_++);
  }
  queued_.notify_all();
}

optim::GradientsParams GradientSync::finish() {
  std::unique_lock lock(mutex_);
  for (Slot& slot : slots_) {
    if (slot.grad.defined()) continue;
    slot.grad =
        ops::zeros(slot.param.shape(),
                   TensorCreationOptions(slot.param.device()).with_dtype(slot.param.dtype()),
                   TensorKind::Float);
  }
  for (Bucket& bucket : buckets_)
    bucket.ready = bucket.slots.size();
  send_ready();
  queued_.wait(lock, [&] { return reduced_ == buckets_.size(); });
  if (error_) std::rethrow_exception(error_);
  optim::GradientsParams grads;
  for (const Slot& slot : slots_)
    grads.insert(slot.name, slot.grad);
  return grads;
}

void GradientSync::work() {
  const NoGradGuard no_grad;
  std::unique_lock lock(mutex_);
  for (;;) {
    queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Bucket& bucket = buckets_[queue_.front()];
    queue_.pop_front();
    if (!error_) {
      lock.unlock();
      try {
        reduce(bucket);
      } catch (...) {
        error_ = std::current_exception();  // finish() rethrows it; later buckets are skipped
      }
      lock.lock();
    }
    ++reduced_;
    queued_.notify_all();
  }
}

void GradientSync::reduce(Bucket& bucket) {
  // Note: the slots of a sent bucket are written by this thread alone from here on.
  ops::Handles flat;
  for (std::size_t slot : bucket.slots)
    flat.push_back(ops::reshape(slots_[slot].grad, {slots_[slot].grad.shape().num_elements()}));
  const TensorHandle joined = flat.size() == 1 ? flat.front() : ops::cat(flat, 0);
  const TensorHandle sum = comm_.all_reduce(joined, collective::ReduceOp::Sum);
  int64_t offset = 0;
  for (std::size_t slot : bucket.slots) {
    const Shape& shape = slots_[slot].param.shape();
    slots_[slot].grad =
        ops::reshape(ops::narrow(sum, 0, offset, shape.num_elements()), shape.dims());
    offset += shape.num_elements();
  }
}

}  // namespace ember::train
