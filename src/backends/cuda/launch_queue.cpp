#include "backends/cuda/launch_queue.h"

#include <algorithm>
#include <exception>
#include <utility>

namespace ember::cuda {
namespace {

/// Chunks shorter than this are issued directly: a graph launch would save little.
constexpr std::size_t kMinGraphEntries = 4;
/// Graphs kept at once (the least recently used goes first): a training step holds a few dozen
/// chunks; an eager program's ever-new chunks must not pile up.
constexpr std::size_t kMaxGraphs = 512;
/// A form that needs a new capture this many times in a row is issued directly from then on:
/// its addresses change every time, so its graph never pays.
constexpr int kMaxRecapturesInARow = 3;

uint64_t mixed(uint64_t hash, uint64_t value) {
  // boost's hash_combine with a 64-bit constant
  return hash ^ (value + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2));
}

}  // namespace

void** LaunchArguments::pointers() {
  pointers_.clear();
  for (const std::size_t offset : offsets_)
    pointers_.push_back(storage_.data() + offset);
  return pointers_.data();
}

struct LaunchQueue::Graph {
  int sightings = 0;
  int recaptures_in_a_row = 0;
  bool direct_only = false;
  std::vector<Entry> entries;      // the form's last entries (the graph's, when there is one)
  std::vector<CUgraphNode> nodes;  // entries[i]'s node, for the kernels
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
};

LaunchQueue::LaunchQueue(std::shared_ptr<const GpuContext> gpu) : gpu_(std::move(gpu)) {}

LaunchQueue::~LaunchQueue() {
  close();
}

void LaunchQueue::set_graph_replay(bool on) {
  const std::lock_guard lock(mutex_);
  graph_replay_ = on;
}

void LaunchQueue::launch(CUfunction function, unsigned grid, unsigned block,
                         LaunchArguments arguments) {
  push({Kind::Kernel, function, grid, block, 0, std::move(arguments), {}});
}

void LaunchQueue::fill(CUdeviceptr to, unsigned char value, std::size_t bytes) {
  if (bytes == 0) return;
  LaunchArguments arguments;
  arguments.add(to);
  arguments.add(value);
  arguments.add(bytes);
  push({Kind::Fill, nullptr, 0, 0, 0, std::move(arguments), {}});
}

void LaunchQueue::copy(CUdeviceptr to, CUdeviceptr from, std::size_t bytes) {
  if (bytes == 0) return;
  LaunchArguments arguments;
  arguments.add(to);
  arguments.add(from);
  arguments.add(bytes);
  push({Kind::Copy, nullptr, 0, 0, 0, std::move(arguments), {}});
}

void LaunchQueue::call(uint64_t form, LaunchArguments operands,
                       std::function<void(CUstream)> issue) {
  push({Kind::Call, nullptr, 0, 0, form, std::move(operands), std::move(issue)});
}

void LaunchQueue::push(Entry entry) {
  const std::lock_guard lock(mutex_);
  if (closed_) {
    issue(entry);
    return;
  }
  entries_.push_back(std::move(entry));
  if (entries_.size() >= kChunk) drain_locked();
}

void LaunchQueue::drain() {
  const std::lock_guard lock(mutex_);
  drain_locked();
}

void LaunchQueue::close() noexcept {
  const std::lock_guard lock(mutex_);
  try {
    drain_locked();
  } catch (...) {
    // The device is going away: what failed has no reader left.
  }
  for (auto& [key, graph] : graphs_)
    forget(graph);
  graphs_.clear();
  recent_.clear();
  closed_ = true;
}

LaunchQueueStats LaunchQueue::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

void LaunchQueue::drain_locked() {
  if (entries_.empty()) return;
  std::vector<Entry> entries = std::exchange(entries_, {});
  gpu_->make_current();
  if (!graph_replay_ || entries.size() < kMinGraphEntries) {
    issue_each(entries);
    return;
  }
  const uint64_t key = form_of(entries);
  auto [found, inserted] = graphs_.try_emplace(key);
  Graph& g = found->second;
  std::erase(recent_, key);
  recent_.push_front(key);
  if (inserted && graphs_.size() > kMaxGraphs) {
    forget(graphs_.at(recent_.back()));
    graphs_.erase(recent_.back());
    recent_.pop_back();
  }
  // Another form with the same hash starts over.
  const bool same = g.entries.size() == entries.size() &&
                    std::equal(entries.begin(), entries.end(), g.entries.begin(), same_form);
  if (!same) {
    forget(g);
    g = Graph{};
  }
  ++g.sightings;
  if (g.direct_only || g.sightings == 1) {
    issue_each(entries);
  } else if (g.exec != nullptr && patch(g, entries)) {
    g.recaptures_in_a_row = 0;
    launch_graph(g);
    ++stats_.replays;
  } else if ((g.exec == nullptr || ++g.recaptures_in_a_row < kMaxRecapturesInARow) &&
             capture(g, entries)) {
    launch_graph(g);
  } else {
    // The capture failed (work a graph cannot hold), or it is needed every time.
    forget(g);
    g.direct_only = true;
    issue_each(entries);
  }
  g.entries = std::move(entries);
}

void LaunchQueue::issue(Entry& entry) {
  const Api& api = gpu_->api();
  const CUstream stream = gpu_->stream();
  LaunchArguments& a = entry.arguments;
  switch (entry.kind) {
    case Kind::Kernel:
      gpu_->check(api.cuLaunchKernel(entry.function, entry.grid, 1, 1, entry.block, 1, 1, 0, stream,
                                     a.pointers(), nullptr),
                  "cuLaunchKernel");
      return;
    case Kind::Fill:
      gpu_->check(api.cuMemsetD8Async(a.at<CUdeviceptr>(0), a.at<unsigned char>(1),
                                      a.at<std::size_t>(2), stream),
                  "cuMemsetD8Async");
      return;
    case Kind::Copy:
      gpu_->check(api.cuMemcpyDtoDAsync(a.at<CUdeviceptr>(0), a.at<CUdeviceptr>(1),
                                        a.at<std::size_t>(2), stream),
                  "cuMemcpyDtoDAsync");
      return;
    case Kind::Call:
      entry.issue(stream);
      return;
  }
}

void LaunchQueue::issue_each(std::vector<Entry>& entries) {
  ++stats_.direct_chunks;
  // Every entry is issued: independent work completes, and the first failure is reported.
  std::exception_ptr failure;
  for (Entry& entry : entries) {
    try {
      issue(entry);
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

bool LaunchQueue::capture(Graph& g, std::vector<Entry>& entries) {
  forget(g);
  const Api& api = gpu_->api();
  const CUstream stream = gpu_->stream();
  // Thread-local: other threads' work on other devices (allocations included) goes on.
  if (api.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS)
    return false;
  std::vector<CUgraphNode> nodes(entries.size(), nullptr);
  bool captured = true;
  try {
    for (std::size_t i = 0; i < entries.size() && captured; ++i) {
      issue(entries[i]);
      if (entries[i].kind != Kind::Kernel) continue;
      // The stream's one dependency now is the node just added.
      CUstreamCaptureStatus status{};
      const CUgraphNode* last = nullptr;
      std::size_t count = 0;
      captured = api.cuStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &last, nullptr,
                                            &count) == CUDA_SUCCESS &&
                 status == CU_STREAM_CAPTURE_STATUS_ACTIVE && count == 1;
      if (captured) nodes[i] = last[0];
    }
  } catch (...) {
    captured = false;  // issue_each reports the failure
  }
  CUgraph graph = nullptr;
  const CUresult ended = api.cuStreamEndCapture(stream, &graph);
  CUgraphExec exec = nullptr;
  if (captured && ended == CUDA_SUCCESS && graph != nullptr &&
      api.cuGraphInstantiateWithFlags(&exec, graph, 0) == CUDA_SUCCESS) {
    g.graph = graph;
    g.exec = exec;
    g.nodes = std::move(nodes);
    ++stats_.captures;
    return true;
  }
  if (graph != nullptr) api.cuGraphDestroy(graph);
  return false;
}

bool LaunchQueue::patch(Graph& g, std::vector<Entry>& entries) {
  std::vector<std::size_t> changed;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].arguments == g.entries[i].arguments) continue;
    if (entries[i].kind != Kind::Kernel) return false;
    changed.push_back(i);
  }
  for (const std::size_t i : changed) {
    Entry& e = entries[i];
    CUDA_KERNEL_NODE_PARAMS parameters{};
    parameters.func = e.function;
    parameters.gridDimX = e.grid;
    parameters.gridDimY = parameters.gridDimZ = 1;
    parameters.blockDimX = e.block;
    parameters.blockDimY = parameters.blockDimZ = 1;
    parameters.kernelParams = e.arguments.pointers();
    if (gpu_->api().cuGraphExecKernelNodeSetParams(g.exec, g.nodes[i], &parameters) !=
        CUDA_SUCCESS) {
      forget(g);  // half patched: of no use
      return false;
    }
    ++stats_.patched_nodes;
  }
  return true;
}

void LaunchQueue::launch_graph(const Graph& g) {
  gpu_->check(gpu_->api().cuGraphLaunch(g.exec, gpu_->stream()), "cuGraphLaunch");
}

void LaunchQueue::forget(Graph& g) noexcept {
  const Api& api = gpu_->api();
  if (g.exec != nullptr) api.cuGraphExecDestroy(g.exec);
  if (g.graph != nullptr) api.cuGraphDestroy(g.graph);
  g.exec = nullptr;
  g.graph = nullptr;
  g.nodes.clear();
}

uint64_t LaunchQueue::form_of(const std::vector<Entry>& entries) {
  uint64_t hash = entries.size();
  for (const Entry& e : entries) {
    hash = mixed(hash, static_cast<uint64_t>(e.kind));
    hash = mixed(hash, reinterpret_cast<uint64_t>(e.function));
    hash = mixed(hash, (uint64_t{e.grid} << 32) | e.block);
    hash = mixed(hash, e.form);
    hash = mixed(hash, e.arguments.size());
  }
  return hash;
}

bool LaunchQueue::same_form(const Entry& a, const Entry& b) {
  return a.kind == b.kind && a.function == b.function && a.grid == b.grid && a.block == b.block &&
         a.form == b.form && a.arguments.size() == b.arguments.size();
}

}  // namespace ember::cuda
