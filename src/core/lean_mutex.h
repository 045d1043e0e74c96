// LeanMutex: a mutex whose uncontended lock and unlock are one atomic exchange each, for locks
// taken on every op (the memory pools', a fusion stream's): std::mutex's pthread calls cost
// several times that, a visible part of an op on a tiny tensor. A contended lock sleeps in the
// kernel (std::atomic::wait) rather than spinning. The classic three-state futex mutex (Drepper,
// "Futexes Are Tricky"): 0 unlocked, 1 locked, 2 locked with possible sleepers. Use it as
// std::mutex, through std::lock_guard; not recursive.
#pragma once

#include <atomic>

namespace ember::detail {

class LeanMutex {
 public:
  LeanMutex() = default;
  LeanMutex(const LeanMutex&) = delete;
  LeanMutex& operator=(const LeanMutex&) = delete;

  void lock() noexcept {
    int expected = kUnlocked;
    if (!state_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire))
      lock_contended(expected);
  }
  void unlock() noexcept {
    if (state_.exchange(kUnlocked, std::memory_order_release) == kContended) state_.notify_one();
  }

 private:
  static constexpr int kUnlocked = 0;
  static constexpr int kLocked = 1;
  static constexpr int kContended = 2;

  /// Sleeps until the lock is free, marking it contended so that its unlock wakes a sleeper.
  void lock_contended(int seen) noexcept {
    if (seen != kContended) seen = state_.exchange(kContended, std::memory_order_acquire);
    while (seen != kUnlocked) {
      state_.wait(kContended, std::memory_order_relaxed);
      seen = state_.exchange(kContended, std::memory_order_acquire);
    }
  }

  std::atomic<int> state_{kUnlocked};
};

}  // namespace ember::detail
