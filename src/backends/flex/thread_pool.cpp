#include "backends/flex/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string_view>

namespace ember::flex {
namespace {

/// Set while this thread runs a chunk: a nested parallel_for then runs inline.
thread_local bool running_chunk = false;

/// Chunks per thread: more than one evens out threads that start late or run slower.
constexpr int64_t kChunksPerThread = 4;

/// value as a positive int; nullopt for anything else (empty, 0, "4x").
std::optional<int> positive_int(std::string_view value) {
  int parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed < 1) return std::nullopt;
  return parsed;
}

}  // namespace

/// One parallel_for: chunks are claimed through next, and the caller waits for done to reach
/// chunks.
struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* body;
  int64_t n;
  int64_t chunk;
  int64_t chunks;
  std::atomic<int64_t> next{0};
  std::mutex mutex;  // guards done and error
  std::condition_variable finished;
  int64_t done = 0;
  std::exception_ptr error;

  /// Runs one unclaimed chunk; false when none is left.
  bool run_one() {
    const int64_t i = next.fetch_add(1);
    if (i >= chunks) return false;
    std::exception_ptr failure;
    running_chunk = true;
    try {
      (*body)(i * chunk, std::min(n, (i + 1) * chunk));
    } catch (...) {
      failure = std::current_exception();
    }
    running_chunk = false;
    const std::lock_guard lock(mutex);
    if (failure && !error) error = failure;
    if (++done == chunks) finished.notify_all();
    return true;
  }
};

int thread_count_from(const char* ember_num_threads, const char* omp_num_threads, int available) {
  if (ember_num_threads != nullptr) {
    if (const std::optional<int> count = positive_int(ember_num_threads)) return *count;
  }
  if (omp_num_threads != nullptr) {
    // OpenMP's list gives the count of each nesting level; the outermost is ours.
    const std::string_view list = omp_num_threads;
    if (const std::optional<int> count = positive_int(list.substr(0, list.find(',')))) {
      return *count;
    }
  }
  return std::max(available, 1);
}

int available_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
    return CPU_COUNT(&allowed);
  return static_cast<int>(std::thread::hardware_concurrency());
}

ThreadPool& ThreadPool::instance() {
  // Never destroyed: workers must outlive every static that might still submit work at exit.
  static ThreadPool* pool = new ThreadPool(thread_count_from(
      std::getenv("EMBER_NUM_THREADS"), std::getenv("OMP_NUM_THREADS"), available_cpus()));
  return *pool;
}

ThreadPool::ThreadPool(int threads) : threads_(std::max(threads, 1)) {
  const std::lock_guard resize(resize_mutex_);
  start_workers_locked(threads_);
}

ThreadPool::~ThreadPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  const std::lock_guard resize(resize_mutex_);
  for (std::thread& worker : workers_)
    worker.join();
}

void ThreadPool::set_threads(int threads) {
  threads = std::max(threads, 1);
  const std::lock_guard resize(resize_mutex_);
  {
    const std::lock_guard lock(mutex_);
    threads_.store(threads, std::memory_order_relaxed);
  }
  wake_.notify_all();  // the workers past the new count retire
  const auto kept = static_cast<std::size_t>(threads - 1);
  for (std::size_t i = kept; i < workers_.size(); ++i)
    workers_[i].join();
  if (workers_.size() > kept) workers_.resize(kept);
  start_workers_locked(threads);
}

void ThreadPool::start_workers_locked(int threads) {
  for (auto index = static_cast<int>(workers_.size()); index < threads - 1; ++index)
    workers_.emplace_back([this, index] { work(index); });
}

void ThreadPool::work(int index) {
  // Worker index is the (index + 2)-th thread of a job: the caller is the first.
  const auto retired = [&] { return index + 1 >= threads_.load(std::memory_order_relaxed); };
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || retired() || !jobs_.empty(); });
      if (stopping_ || retired()) return;
      job = jobs_.front();
    }
    while (job->run_one()) {
    }
    // Every chunk is claimed: nobody needs to find this job any more.
    const std::lock_guard lock(mutex_);
    if (!jobs_.empty() && jobs_.front() == job) jobs_.pop_front();
  }
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t)>& body) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t threads = this->threads();
  if (n <= grain || threads == 1 || running_chunk) {
    body(0, n);
    return;
  }
  const int64_t chunk =
      std::max(grain, (n + threads * kChunksPerThread - 1) / (threads * kChunksPerThread));
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->n = n;
  job->chunk = chunk;
  job->chunks = (n + chunk - 1) / chunk;
  {
    const std::lock_guard lock(mutex_);
    jobs_.push_back(job);
  }
  wake_.notify_all();
  while (job->run_one()) {
  }
  std::unique_lock lock(job->mutex);
  job->finished.wait(lock, [&] { return job->done == job->chunks; });
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace ember::flex
