// Sum, mean, max, min, argmax and argmin of f32 / f64 along a dim or over the whole tensor, and
// the variance along contiguous lanes (the last dim, or the whole tensor),
// through the SIMD loops of simd.h (strided inputs are made contiguous first).
// A reduced dim that is innermost is read as contiguous rows, several at once; their sums
// accumulate in double, as ndarray's, f32 rows after adding blocks of a few vectors in f32 (see
// simd::sum and simd::row_sums). Otherwise (a reduction across rows) each task streams whole rows
// of a block of columns into small accumulators, with no transposition: f32 sums add blocks of
// rows in f32 vectors (blocked summation, as PyTorch's) and the blocks in double; f64 sums stay in
// double; arg-reductions keep each column's best value and its row. When the column blocks are too
// few to keep the pool busy, the rows are cut into chunks as well, whose results are combined in
// order. Empty reductions and the other ops fall back to ndarray.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/flex/copy.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/flex/thread_buffer.h"
#include "backends/flex/thread_pool.h"
#include "backends/ndarray/strided_index.h"
#include "core/ceil_div.h"

namespace ember::flex {
namespace {

using ir::ReduceOp;
using ndarray::Lanes;

/// Columns per task of a reduction across rows: each row's run of a block is 16 KiB of f32, long
/// enough for the hardware prefetchers to follow it past a few pages (with runs of 4 KiB, one page,
/// max, min and sum along dim 0 of [8, 512, 4096] stayed behind PyTorch's), and the task's
/// accumulators (16 to 32 KiB, an arg-reduction's values and rows) stay in L1 or L2 while the rows
/// stream through.
constexpr int64_t kColumnBlock = 4096;
/// Rows an f32 sum across rows adds in f32 before adding the block into double: enough that the
/// double additions cost little, few enough that f32 rounding stays within f32 tolerance.
constexpr int64_t kSumBlockRows = 32;
/// Tasks per thread a reduction across rows aims at, so that threads that start late even out.
constexpr int64_t kTasksPerThread = 4;
/// Rows whose sums one simd::row_sums call leaves in a task's buffer.
constexpr int64_t kRowSumBatch = 64;
/// Fewest rows of a chunk, so that a chunk's partial results stay a small part of its work.
constexpr int64_t kMinChunkRows = 64;
/// Most rows of a chunk: arg_extreme_rows counts f32 rows in 32 bits.
constexpr int64_t kMaxChunkRows = std::numeric_limits<int32_t>::max();

bool is_arg(ReduceOp op) {
  return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
}
bool is_extreme(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::Min;
}
bool is_maximum(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::ArgMax;
}

/// Whether v, found after best, takes its place in a scan: beyond it, or NaN where best is not.
template <typename T>
bool later_wins(T v, T best, bool maximum) {
  return (maximum ? v > best : v < best) || (std::isnan(v) && !std::isnan(best));
}

/// The result of one lane (or column) from its sum: the sum or the mean.
template <typename T>
T from_sum(ReduceOp op, double sum, int64_t size) {
  return static_cast<T>(op == ReduceOp::Mean ? sum / static_cast<double>(size) : sum);
}

/// One value per contiguous row of size elements: out[r] = reduce(row r).
template <typename T, typename Out, typename F>
void reduce_rows(const T* x, int64_t rows, int64_t size, Out* out, const F& reduce) {
  parallel_for(rows, std::max<int64_t>(1, kElementGrain / size), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      out[r] = reduce(x + r * size);
  });
}

/// Sum or mean of each contiguous row of size elements into out, batches of rows at a time.
template <typename T>
void sum_each_row(ReduceOp op, const T* x, int64_t rows, int64_t size, T* out) {
  parallel_for(rows, std::max<int64_t>(1, kElementGrain / size), [&](int64_t begin, int64_t end) {
    std::array<double, kRowSumBatch> sums;
    for (int64_t r = begin; r < end; r += kRowSumBatch) {
      const int64_t batch = std::min(kRowSumBatch, end - r);
      simd::row_sums(x + r * size, batch, size, sums.data());
      for (int64_t k = 0; k < batch; ++k)
        out[r + k] = from_sum<T>(op, sums[static_cast<std::size_t>(k)], size);
    }
  });
}

/// The sum of one long row, in parallel chunks combined in order.
template <typename T>
double parallel_sum(const T* x, int64_t size) {
  const int64_t chunks = ceil_div(size, kElementGrain);
  std::vector<double> partial(static_cast<std::size_t>(chunks));
  parallel_for(chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t first = c * kElementGrain;
      partial[static_cast<std::size_t>(c)] =
          simd::sum(x + first, std::min(kElementGrain, size - first));
    }
  });
  double total = 0.0;
  for (const double p : partial)
    total += p;
  return total;
}

/// One task of a reduction across rows: width columns from output index column, over rows
/// [row, row + rows) of their outer block; the task's first input element is at offset.
struct RowTask {
  int64_t column;
  int64_t width;
  int64_t offset;
  int64_t row;
  int64_t rows;
};

/// A reduction across rows cut into tasks: a block of columns of one outer index, over one chunk
/// of the rows. Rows are cut into several chunks only when the blocks are too few for the pool.
class RowTasks {
 public:
  explicit RowTasks(const Lanes& lanes)
      : lanes_(lanes), blocks_per_outer_(ceil_div(lanes.inner, kColumnBlock)) {
    const int64_t wanted = ThreadPool::instance().threads() * kTasksPerThread;
    int64_t chunks = 1;
    if (blocks() < wanted && lanes.count() * lanes.size > kElementGrain)
      chunks = std::min(ceil_div(wanted, blocks()), lanes.size / kMinChunkRows);
    chunks = std::max({chunks, ceil_div(lanes.size, kMaxChunkRows), int64_t{1}});
    chunk_rows_ = ceil_div(lanes.size, chunks);
    chunks_ = ceil_div(lanes.size, chunk_rows_);
  }

  /// Column blocks over all outer indices.
  int64_t blocks() const { return lanes_.outer * blocks_per_outer_; }
  int64_t chunks() const { return chunks_; }
  /// Tasks per parallel_for chunk: about kElementGrain elements.
  int64_t grain() const {
    return std::max<int64_t>(1,
                             kElementGrain / (chunk_rows_ * std::min(lanes_.inner, kColumnBlock)));
  }

  RowTask task(int64_t block, int64_t chunk) const {
    const int64_t outer = block / blocks_per_outer_;
    const int64_t first = block % blocks_per_outer_ * kColumnBlock;
    const int64_t row = chunk * chunk_rows_;
    return {outer * lanes_.inner + first, std::min(kColumnBlock, lanes_.inner - first),
            (outer * lanes_.size + row) * lanes_.inner + first, row,
            std::min(chunk_rows_, lanes_.size - row)};
  }

 private:
  Lanes lanes_;
  int64_t blocks_per_outer_;
  int64_t chunk_rows_ = 0;
  int64_t chunks_ = 1;
};

/// n partial results of a reduction across rows cut into chunks, in memory the calling thread
/// keeps from call to call (unset: every one is written before it is read). A new vector was
/// zeroed, its pages faulted in, on one thread while the others waited: 4 MiB for an argmax of
/// [8, 512, 4096] along dim 1 on 16 threads. Chunks are cut only while the column blocks are fewer
/// than the pool's tasks, so n * sizeof(State) stays within about threads * kTasksPerThread *
/// kColumnBlock states.
template <typename State>
State* partial_buffer(int64_t n) {
  return thread_buffer<struct PartialResults, State>(n);
}

/// Runs a reduction across rows. reducer.run(task) reduces a task over all its rows and writes
/// its outputs. When the rows are cut into chunks, reducer.reduce(task, state) leaves the result
/// of the task's rows in state[0, width), reducer.combine(later, state, width) folds a later
/// chunk's result into state, and reducer.finish(task, state) writes the task's outputs.
template <typename Reducer>
void reduce_across_rows(const Lanes& lanes, const Reducer& reducer) {
  using State = typename Reducer::State;
  const RowTasks tasks(lanes);
  if (tasks.chunks() == 1) {
    parallel_for(tasks.blocks(), tasks.grain(), [&](int64_t begin, int64_t end) {
      for (int64_t block = begin; block < end; ++block)
        reducer.run(tasks.task(block, 0));
    });
    return;
  }
  // Each chunk's results for every column, chunk after chunk; then combined in chunk order.
  const int64_t chunks = tasks.chunks();
  const int64_t columns = lanes.count();
  State* partial = partial_buffer<State>(chunks * columns);
  parallel_for(tasks.blocks() * chunks, tasks.grain(), [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const RowTask task = tasks.task(t / chunks, t % chunks);
      reducer.reduce(task, partial + t % chunks * columns + task.column);
    }
  });
  parallel_for(tasks.blocks(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const RowTask task = tasks.task(block, 0);
      State* state = partial + task.column;
      for (int64_t c = 1; c < chunks; ++c)
        reducer.combine(state + c * columns, state, task.width);
      reducer.finish(task, state);
    }
  });
}

/// Sum or mean across rows, each task's column sums rounded once to T.
template <typename T>
struct SumAcross {
  using State = T;
  ReduceOp op;
  const T* x;
  const Lanes& lanes;
  T* out;

  void run(const RowTask& task) const {
    // The sums go straight into the output, which a mean then divides in place.
    T* dst = out + task.column;
    reduce(task, dst);
    if (op == ReduceOp::Sum) return;
    for (int64_t j = 0; j < task.width; ++j)
      dst[j] = from_sum<T>(op, dst[j], lanes.size);
  }
  void reduce(const RowTask& task, T* sums) const {
    if constexpr (std::is_same_v<T, float>) {
      if (task.rows > kSumBlockRows) return sum_blocks(task, sums);
    }
    simd::sum_rows(x + task.offset, lanes.inner, task.rows, sums, task.width);
  }
  /// f32 over many rows: blocks of rows summed in f32 vectors (into sums), the blocks in double.
  void sum_blocks(const RowTask& task, float* sums) const {
    double* total = thread_buffer<struct SumTotals, double>(task.width);
    std::fill_n(total, task.width, 0.0);
    for (int64_t k = 0; k < task.rows; k += kSumBlockRows) {
      simd::sum_rows(x + task.offset + k * lanes.inner, lanes.inner,
                     std::min(kSumBlockRows, task.rows - k), sums, task.width);
      simd::add_row(sums, total, task.width);
    }
    std::copy_n(total, task.width, sums);
  }
  void combine(const T* later, T* sums, int64_t width) const {
    // sums and later as two rows of the partial results.
    simd::sum_rows(sums, later - sums, 2, sums, width);
  }
  void finish(const RowTask& task, const T* sums) const {
    T* dst = out + task.column;
    for (int64_t j = 0; j < task.width; ++j)
      dst[j] = from_sum<T>(op, sums[j], lanes.size);
  }
};

/// Max or min across rows.
template <typename T>
struct ExtremeAcross {
  using State = T;
  bool maximum;
  const T* x;
  const Lanes& lanes;
  T* out;

  void run(const RowTask& task) const { reduce(task, out + task.column); }
  void reduce(const RowTask& task, T* best) const {
    simd::extreme_rows(x + task.offset, lanes.inner, task.rows, best, task.width, maximum);
  }
  void combine(const T* later, T* best, int64_t width) const {
    // best and later as two rows of the partial results.
    simd::extreme_rows(best, later - best, 2, best, width, maximum);
  }
  void finish(const RowTask& task, const T* best) const {
    std::copy_n(best, task.width, out + task.column);
  }
};

/// A column's best value and the row (within its lane) holding it.
template <typename T>
struct Position {
  T value;
  int64_t row;
};

/// ArgMax or ArgMin across rows, as index dtype I.
template <typename T, typename I>
struct ArgAcross {
  using State = Position<T>;
  /// arg_extreme_rows's row index: as wide as T, so that it fits the same vector lanes.
  using RowIndex = std::conditional_t<std::is_same_v<T, float>, int32_t, int64_t>;
  bool maximum;
  const T* x;
  const Lanes& lanes;
  I* out;

  /// The task's best values and rows, in buffers the thread keeps.
  std::pair<const T*, const RowIndex*> scan(const RowTask& task) const {
    T* values = thread_buffer<struct ArgBest, T>(task.width);
    RowIndex* rows = thread_buffer<struct ArgRows, RowIndex>(task.width);
    simd::arg_extreme_rows(x + task.offset, lanes.inner, task.rows, values, rows, task.width,
                           maximum);
    return {values, rows};
  }
  void run(const RowTask& task) const {
    const RowIndex* rows = scan(task).second;
    I* dst = out + task.column;
    for (int64_t j = 0; j < task.width; ++j)
      dst[j] = detail::convert_element<I>(rows[j]);
  }
  void reduce(const RowTask& task, Position<T>* best) const {
    const auto [values, rows] = scan(task);
    for (int64_t j = 0; j < task.width; ++j)
      best[j] = {values[j], task.row + rows[j]};
  }
  void combine(const Position<T>* later, Position<T>* best, int64_t width) const {
    for (int64_t j = 0; j < width; ++j) {
      if (later_wins(later[j].value, best[j].value, maximum)) best[j] = later[j];
    }
  }
  void finish(const RowTask& task, const Position<T>* best) const {
    for (int64_t j = 0; j < task.width; ++j)
      out[task.column + j] = detail::convert_element<I>(best[j].row);
  }
};

/// Sum, mean, max or min of each lane into out (one value per lane).
template <typename T>
void reduce_values(ReduceOp op, const T* x, const Lanes& lanes, T* out) {
  if (lanes.inner > 1) {
    if (is_extreme(op))
      return reduce_across_rows(lanes, ExtremeAcross<T>{is_maximum(op), x, lanes, out});
    return reduce_across_rows(lanes, SumAcross<T>{op, x, lanes, out});
  }
  const int64_t size = lanes.size;
  if (is_extreme(op)) {
    return reduce_rows(x, lanes.count(), size, out,
                       [&](const T* row) { return simd::extreme(row, size, is_maximum(op)); });
  }
  if (lanes.count() == 1) {
    *out = from_sum<T>(op, parallel_sum(x, size), size);
    return;
  }
  sum_each_row(op, x, lanes.count(), size, out);
}

/// ArgMax or ArgMin of each lane into out, of the index dtype I.
template <typename T, typename I>
void reduce_positions(ReduceOp op, const T* x, const Lanes& lanes, I* out) {
  const bool maximum = is_maximum(op);
  if (lanes.inner > 1) return reduce_across_rows(lanes, ArgAcross<T, I>{maximum, x, lanes, out});
  reduce_rows(x, lanes.count(), lanes.size, out, [&](const T* row) {
    return detail::convert_element<I>(simd::arg_extreme(row, lanes.size, maximum));
  });
}

/// The variance of each contiguous lane (lanes.inner == 1) into out: its mean, then (the lane in
/// cache) the squared deviations from it; NaN where size - correction <= 0, as ndarray's.
template <typename T>
void variance_rows(int64_t correction, const T* x, const Lanes& lanes, T* out) {
  const int64_t size = lanes.size;
  reduce_rows(x, lanes.count(), size, out, [&](const T* row) {
    if (size - correction <= 0) return std::numeric_limits<T>::quiet_NaN();
    const double mean = simd::sum(row, size) / static_cast<double>(size);
    return static_cast<T>(simd::squared_deviations(row, size, mean) /
                          static_cast<double>(size - correction));
  });
}

bool has_fast_path(const ir::Reduce& op, const View& x) {
  const bool covered = op.op == ReduceOp::Sum || op.op == ReduceOp::Mean ||
                       op.op == ReduceOp::Max || op.op == ReduceOp::Min || is_arg(op.op);
  // Var along contiguous lanes only (layer_norm's rows); across rows it stays with ndarray.
  const bool along_rows =
      op.op == ReduceOp::Var && (!op.dim || *op.dim + 1 == static_cast<int64_t>(x.shape.rank()));
  return (covered || along_rows) && is_simd_float(x.dtype) && x.num_elements() > 0;
}

}  // namespace

std::optional<View> run(const ir::Reduce& op, Views in, Outputs out) {
  if (!has_fast_path(op, in[0])) return std::nullopt;
  const View x = contiguous(in[0]);
  const Lanes lanes = op.dim ? Lanes::along(x.shape, *op.dim) : Lanes::whole(x.shape);
  OutputTensor result(out[0]);
  visit_simd_float(x.dtype, [&]<typename T>() {
    if (op.op == ReduceOp::Var)
      return variance_rows(op.correction, x.data<T>(), lanes, result.data<T>());
    if (!is_arg(op.op)) return reduce_values(op.op, x.data<T>(), lanes, result.data<T>());
    visit_dtype(out[0].dtype, [&]<typename I>() {
      reduce_positions(op.op, x.data<T>(), lanes, result.data<I>());
    });
  });
  return result.view();
}

}  // namespace ember::flex
