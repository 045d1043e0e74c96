#include "collective/rendezvous.h"

#include <utility>

#include "ember/error.h"

namespace ember::collective {

Rendezvous::Rendezvous(int parties, std::chrono::milliseconds timeout)
    : parties_(parties), timeout_(timeout), calls_(parties), inputs_(parties) {}

Rendezvous::Output Rendezvous::exchange(int party, const Call& call, TensorData input,
                                        const Combine& combine) {
  std::unique_lock lock(mutex_);
  throw_if_broken(call);
  const uint64_t generation = generation_;
  calls_[party] = call;
  inputs_[party] = std::move(input);
  if (++arrived_ == parties_) {
    finish(lock, combine);
  } else {
    wait_for(lock, generation, call, party);
  }
  // outcome_ is still this generation's: the next cannot finish before this rank arrives again.
  const std::shared_ptr<Outcome> outcome = outcome_;
  if (outcome->error) std::rethrow_exception(outcome->error);
  return outcome->outputs[party];
}

void Rendezvous::finish(std::unique_lock<std::mutex>& lock, const Combine& combine) {
  std::vector<Call> calls;
  std::vector<std::string> labels;
  for (int i = 0; i < parties_; ++i) {
    calls.push_back(*calls_[i]);
    labels.push_back("local rank " + std::to_string(i));
    calls_[i].reset();
  }
  std::vector<TensorData> inputs = std::exchange(inputs_, std::vector<TensorData>(parties_));
  combining_ = true;
  lock.unlock();
  // Note: combine runs unlocked, so that the cross-process step (which has its own timeout) does
  // not hold the ranks' lock; the others wait without a deadline while combining_ is set.
  auto outcome = std::make_shared<Outcome>();
  try {
    check_same_calls(calls, labels);
    outcome->outputs = combine(inputs);
  } catch (...) {
    outcome->error = std::current_exception();
  }
  lock.lock();
  combining_ = false;
  outcome_ = std::move(outcome);
  arrived_ = 0;
  ++generation_;
  changed_.notify_all();
}

void Rendezvous::wait_for(std::unique_lock<std::mutex>& lock, uint64_t generation, const Call& call,
                          int party) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const auto passed = [&] { return generation_ != generation || broken_.has_value(); };
  while (!passed()) {
    if (combining_) {
      changed_.wait(lock);
    } else if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && !passed() &&
               !combining_) {
      broken_ = "local rank " + std::to_string(party) + " waited " +
                std::to_string(timeout_.count()) + " ms in " + call.name + " for " + missing() +
                " (a rank that failed, or called another collective)";
      changed_.notify_all();
    }
  }
  if (generation_ == generation) throw_if_broken(call);
}

void Rendezvous::throw_if_broken(const Call& call) const {
  if (broken_) throw ExecutionError("[" + call.name + "] the group is broken: " + *broken_);
}

std::string Rendezvous::missing() const {
  std::string names;
  for (int i = 0; i < parties_; ++i) {
    if (calls_[i]) continue;
    names += (names.empty() ? "local rank " : ", ") + std::to_string(i);
  }
  return names;
}

void Rendezvous::abort(const std::string& reason) {
  const std::lock_guard lock(mutex_);
  if (!broken_) broken_ = reason;
  changed_.notify_all();
}

}  // namespace ember::collective
