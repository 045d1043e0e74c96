#include "backends/flex/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace ember::flex {
namespace {

/// Set while this thread runs a chunk: a nested parallel_for then runs inline.
thread_local bool running_chunk = false;

/// Chunks per thread: more than one evens out threads that start late or run slower.
constexpr int64_t kChunksPerThread = 4;

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

int thread_count_from(const char* env_value, unsigned hardware) {
  if (env_value != nullptr) {
    int value = 0;
    const char* end = env_value + std::strlen(env_value);
    const auto [ptr, ec] = std::from_chars(env_value, end, value);
    if (ec == std::errc() && ptr == end && value > 0) return value;
  }
  return static_cast<int>(std::max(hardware, 1u));
}

ThreadPool& ThreadPool::instance() {
  // Never destroyed: workers must outlive every static that might still submit work at exit.
  static ThreadPool* pool = new ThreadPool(
      thread_count_from(std::getenv("EMBER_NUM_THREADS"), std::thread::hardware_concurrency()));
  return *pool;
}

ThreadPool::ThreadPool(int threads) : threads_(std::max(threads, 1)) {
  for (int i = 1; i < threads_; ++i)
    workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_)
    worker.join();
}

void ThreadPool::work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
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
  if (n <= grain || threads_ == 1 || running_chunk) {
    body(0, n);
    return;
  }
  const int64_t chunk =
      std::max(grain, (n + threads_ * kChunksPerThread - 1) / (threads_ * kChunksPerThread));
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
