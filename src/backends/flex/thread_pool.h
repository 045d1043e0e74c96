// ThreadPool: the one process-wide pool every flex kernel shares (DESIGN.md §1: a Device may be
// used from several threads, so several callers may submit work at once). Callers take part in
// their own work, and a parallel_for issued from inside a chunk runs inline, so the pool never
// waits on itself.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ember::flex {

/// The default thread count: EMBER_NUM_THREADS when it is a positive integer, else the first
/// entry of OMP_NUM_THREADS ("4" or "4,2") when that is, else available (at least 1): the CPUs
/// the process may run on.
int thread_count_from(const char* ember_num_threads, const char* omp_num_threads, int available);

/// The CPUs this process may run on: its affinity mask (what taskset or a container's cpuset
/// allows), else std::thread::hardware_concurrency.
int available_cpus();

class ThreadPool {
 public:
  /// The shared pool, sized by thread_count_from(EMBER_NUM_THREADS, OMP_NUM_THREADS,
  /// available_cpus()) until set_threads changes it.
  static ThreadPool& instance();

  /// A pool of threads threads in all: the caller plus threads - 1 workers.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_.load(std::memory_order_relaxed); }
  /// Runs later work on threads threads (>= 1): workers are started or retired to match. Work
  /// already running finishes on the threads it has; safe to call from any thread.
  void set_threads(int threads);

  /// Calls body(begin, end) on disjoint chunks covering [0, n), each at least grain long but the
  /// last, on the workers and the calling thread; returns when every chunk is done, rethrowing
  /// the first exception a chunk threw. Runs body(0, n) inline when one chunk suffices, the pool
  /// has one thread, or the caller is itself running a chunk.
  void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body);

 private:
  struct Job;
  /// Worker index's loop: runs jobs until the pool stops or shrinks below it.
  void work(int index);
  void start_workers_locked(int threads);

  std::atomic<int> threads_;  // written under mutex_, read without it
  std::mutex mutex_;          // guards jobs_, stopping_ and threads_' writes
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stopping_ = false;
  std::mutex resize_mutex_;  // guards workers_: one set_threads at a time
  std::vector<std::thread> workers_;
};

/// ThreadPool::instance().parallel_for(n, grain, body). Note: work of one chunk runs here at once,
/// as the pool would run it, without wrapping body in a std::function (an allocation when it
/// captures much) or reaching the pool: on tiny tensors that is a visible part of an op.
template <typename Body>
void parallel_for(int64_t n, int64_t grain, const Body& body) {
  if (n <= 0) return;
  if (n <= std::max<int64_t>(grain, 1)) {
    body(int64_t{0}, n);
    return;
  }
  ThreadPool::instance().parallel_for(n, grain, body);
}

}  // namespace ember::flex
