// DataLoader: turns a dataset into a sequence of batches, epoch after epoch, optionally shuffled
// and built ahead of the training loop by worker threads.
//
//   DataLoader loader(FashionMnist::train(), FashionMnistBatcher{},
//                     {.batch_size = 64, .shuffle = 42, .num_workers = 2, .device = device});
//   for (int e = 0; e < epochs; ++e)
//     for (MnistBatch& batch : loader.epoch()) { ... }
//
// A batcher is any callable Batch(std::vector<Item>, const Device&): it receives a batch's items
// in order and makes the batch (usually tensors on the device). With worker threads it is called
// concurrently from several threads, so it must be safe to call concurrently (a stateless
// function object is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <numeric>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/batch_source.h"
#include "ember/data/checks.h"
#include "ember/data/dataset.h"
#include "ember/data/permutation.h"
#include "ember/device.h"

namespace ember::data {

struct DataLoaderOptions {
  /// Items per batch; must be positive. The last batch of an epoch may be smaller unless
  /// drop_last.
  std::size_t batch_size = 1;
  /// A seed to shuffle with, or nullopt for the dataset's order. Every epoch has its own order:
  /// epoch e is seeded_permutation(len, derive_seed(seed, e)), so a run is reproducible and a
  /// resumed run can replay epoch e with DataLoader::epoch(e).
  std::optional<uint64_t> shuffle = std::nullopt;
  /// Leave out the last batch of an epoch when it would be smaller than batch_size.
  bool drop_last = false;
  /// Threads building batches ahead of the consumer; 0 builds each batch on the consumer's
  /// thread when it is asked for.
  std::size_t num_workers = 0;
  /// With workers: at most this many batches are built (or being built) beyond the last one
  /// handed out, which bounds the memory ready batches hold; must then be positive.
  std::size_t prefetch = 2;
  /// Passed to the batcher: where the batch's tensors go.
  Device device = Device::default_device();
  /// Data-parallel sharding (docs/data_parallel.md): every batch of batch_size items is cut into
  /// shards contiguous parts, in rank order, their sizes differing by at most one, and this
  /// loader yields part shard of each. With shards > 1, an epoch's last batch is left out when it
  /// has fewer items than shards, so every rank has items in every step and all take as many
  /// steps. The Learner shards the loader it is given itself (DataLoader::sharded).
  std::size_t shards = 1;
  std::size_t shard = 0;  ///< < shards
};

/// One pass over the data: an input range of batches, consumed once, in batch order whatever
/// the worker timing. Iterating yields Batch&, valid until the next increment; the range is
/// move-only, and destroying it (at the end of the loop, or after a break or an exception)
/// stops and joins its workers. An exception thrown by the dataset or the batcher, on whatever
/// thread, is rethrown by begin() or ++ when its batch is due; the epoch then ends.
template <typename Batch>
class Epoch {
 public:
  class Iterator {
   public:
    using iterator_concept = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;

    Iterator() = default;
    Batch& operator*() const { return *epoch_->current_; }
    Batch* operator->() const { return &*epoch_->current_; }
    Iterator& operator++() {
      epoch_->advance();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator& it, std::default_sentinel_t) { return it.at_end(); }

   private:
    friend class Epoch;
    explicit Iterator(Epoch* epoch) : epoch_(epoch) {}
    bool at_end() const { return !epoch_->current_; }
    Epoch* epoch_ = nullptr;
  };

  explicit Epoch(std::unique_ptr<detail::BatchSource<Batch>> source) : source_(std::move(source)) {}

  /// Fetches the first batch on the first call; later calls return an iterator at the current
  /// batch.
  Iterator begin() {
    if (!started_) {
      started_ = true;
      advance();
    }
    return Iterator(this);
  }
  std::default_sentinel_t end() const { return {}; }
  /// The number of batches this epoch yields.
  std::size_t num_batches() const { return source_->num_batches(); }

 private:
  void advance() {
    current_.reset();  // frees the previous batch before the next is built
    current_ = source_->next();
  }

  std::unique_ptr<detail::BatchSource<Batch>> source_;
  std::optional<Batch> current_;
  bool started_ = false;
};

template <typename Item, typename Batch>
class DataLoader {
 public:
  using Batcher = std::function<Batch(std::vector<Item>, const Device&)>;

  /// InvalidArgument when dataset or batcher is empty, batch_size is 0, or prefetch is 0 with
  /// workers.
  DataLoader(DatasetPtr<Item> dataset, Batcher batcher, DataLoaderOptions options = {})
      : dataset_(std::move(dataset)), batcher_(std::move(batcher)), options_(std::move(options)) {
    detail::check_not_null(dataset_ != nullptr, "DataLoader", "dataset");
    detail::check_not_null(static_cast<bool>(batcher_), "DataLoader", "batcher");
    detail::check_positive(options_.batch_size, "DataLoader", "batch_size");
    if (options_.num_workers > 0) {
      detail::check_positive(options_.prefetch, "DataLoader", "prefetch");
    }
    detail::check_shard(options_.shard, options_.shards);
  }

  /// Items an epoch yields: the dataset's len, less the incomplete last batch with drop_last
  /// (or, sharded, with fewer items than shards); sharded, this shard's part of them.
  std::size_t num_items() const {
    const std::size_t all = all_items();
    const std::size_t size = options_.batch_size;
    const std::size_t last = all % size;
    return all / size * detail::part_size(size, options_.shard, options_.shards) +
           (last == 0 ? 0 : detail::part_size(last, options_.shard, options_.shards));
  }
  /// Batches an epoch yields.
  std::size_t num_batches() const { return detail::ceil_div(all_items(), options_.batch_size); }
  /// This loader's shard (of shards, in rank order) of every batch, built on device: what one
  /// rank of a data-parallel run reads. InvalidArgument unless shard < shards.
  DataLoader sharded(std::size_t shard, std::size_t shards, const Device& device) const {
    DataLoaderOptions options = options_;
    options.shard = shard;
    options.shards = shards;
    options.device = device;
    return DataLoader(dataset_, batcher_, std::move(options));
  }
  const DataLoaderOptions& options() const { return options_; }
  /// The number of epochs epoch() has started.
  std::size_t epochs_started() const { return next_epoch_; }

  /// The next epoch: 0 on the first call, then 1, 2, ...
  Epoch<Batch> epoch() { return epoch(next_epoch_++); }
  /// Epoch index (its order depends on index only when shuffling); its workers start now.
  Epoch<Batch> epoch(std::size_t index) const {
    detail::EpochPlan<Item, Batch> plan{
        dataset_,       batcher_,       options_.device, order(index), options_.batch_size,
        options_.shard, options_.shards};
    if (options_.num_workers == 0) {
      return Epoch<Batch>(
          std::make_unique<detail::InlineBatchSource<Item, Batch>>(std::move(plan)));
    }
    return Epoch<Batch>(std::make_unique<detail::ThreadedBatchSource<Item, Batch>>(
        std::move(plan), options_.num_workers, options_.prefetch));
  }

 private:
  /// The dataset indices epoch index visits.
  std::vector<std::size_t> order(std::size_t index) const {
    std::vector<std::size_t> indices;
    if (options_.shuffle) {
      indices = seeded_permutation(dataset_->len(), derive_seed(*options_.shuffle, index));
    } else {
      indices.resize(dataset_->len());
      std::iota(indices.begin(), indices.end(), std::size_t{0});
    }
    indices.resize(all_items());
    return indices;
  }

  /// The items of an epoch's batches, every shard's.
  std::size_t all_items() const {
    const std::size_t len = dataset_->len();
    const std::size_t last = len % options_.batch_size;
    const bool drop = options_.drop_last || (options_.shards > 1 && last < options_.shards);
    return drop ? len - last : len;
  }

  DatasetPtr<Item> dataset_;
  Batcher batcher_;
  DataLoaderOptions options_;
  std::size_t next_epoch_ = 0;
};

/// Deduces Item from the dataset (any shared_ptr to a Dataset) and Batch from the batcher:
/// DataLoader loader(FashionMnist::train(), FashionMnistBatcher{}, options).
template <typename D, typename F>
DataLoader(std::shared_ptr<D>, F, DataLoaderOptions = {})
    -> DataLoader<typename D::item_type,
                  std::invoke_result_t<F&, std::vector<typename D::item_type>, const Device&>>;

}  // namespace ember::data
