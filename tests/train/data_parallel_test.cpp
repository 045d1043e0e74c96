// Data-parallel training on CPU devices: the sharded loader, replicas that stay identical, and
// a run over N devices that ends where training on one device over the whole batches ends.
#include <gtest/gtest.h>

#include <numeric>

#include "ember/train/data_parallel.h"
#include "support/data_parallel_run.h"
#include "support/temp_dir.h"

namespace ember::train {
namespace {

namespace run = ::ember::test::data_parallel_run;

/// The labels (= dataset indices here) each of shards shards reads in epoch 0 of 10 items in
/// batches of 4.
std::vector<std::vector<int64_t>> shard_items(std::size_t shards) {
  std::vector<int64_t> labels(10);
  std::iota(labels.begin(), labels.end(), 0);
  std::vector<run::Sample> samples;
  for (int64_t label : labels)
    samples.push_back({{0, 0, 0, 0}, label});
  data::DataLoader<run::Sample, run::Batch> loader(data::in_memory(samples), run::make_batch,
                                                   {.batch_size = 4, .device = Device::ndarray()});
  std::vector<std::vector<int64_t>> items;
  for (std::size_t shard = 0; shard < shards; ++shard) {
    const auto part = loader.sharded(shard, shards, Device::ndarray());
    std::vector<int64_t>& mine = items.emplace_back();
    std::size_t batches = 0;
    for (run::Batch& batch : part.epoch(0)) {
      const std::vector<int64_t> got = batch.labels.into_data().to_vector<int64_t>();
      mine.insert(mine.end(), got.begin(), got.end());
      ++batches;
    }
    EXPECT_EQ(batches, part.num_batches());
    EXPECT_EQ(mine.size(), part.num_items());
  }
  return items;
}

TEST(ShardedLoader, CutsEveryBatchIntoContiguousPartsInRankOrder) {
  // 10 items in batches of 4: [0 1 2 3] [4 5 6 7] [8 9]. Three shards take 2 + 1 + 1 items of
  // each full batch; the last batch, of fewer items than shards, is left out.
  EXPECT_EQ(shard_items(3), (std::vector<std::vector<int64_t>>{{0, 1, 4, 5}, {2, 6}, {3, 7}}));
  // Two shards keep the last batch: [8] and [9].
  EXPECT_EQ(shard_items(2), (std::vector<std::vector<int64_t>>{{0, 1, 4, 5, 8}, {2, 3, 6, 7, 9}}));
  EXPECT_EQ(shard_items(1), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}));
}

TEST(ShardedLoader, AShardPastTheCountIsRefused) {
  data::DataLoader<run::Sample, run::Batch> loader(run::samples(), run::make_batch,
                                                   {.batch_size = 4, .device = Device::ndarray()});
  EXPECT_THROW(loader.sharded(2, 2, Device::ndarray()), InvalidArgument);
}

/// Replicas of one model on devices stepped three times, each replica on its own batch.
void expect_replicas_stay_identical(const std::vector<Device>& devices) {
  const Device first = devices.front().autodiff();
  first.seed(7);
  run::Mlp model{nn::LinearConfig{4, 8}.init(first), nn::LinearConfig{8, 3}.init(first)};
  optim::Adam optimizer = optim::AdamConfig{}.init();
  DataParallel<run::Mlp> parallel(model, optimizer, {.devices = devices, .bucket_bytes = 100});
  const std::vector<double> start = run::parameters_of(model);
  std::vector<run::Sample> all;
  for (std::size_t i = 0; i < 30; ++i)
    all.push_back(*run::samples()->get(i));
  for (std::size_t step = 0; step < 3; ++step) {
    std::vector<run::Batch> batches;
    for (std::size_t r = 0; r < devices.size(); ++r) {
      const auto from = all.begin() + static_cast<std::ptrdiff_t>((step * devices.size() + r) * 2);
      batches.push_back(run::make_batch(
          {from, from + 2}, parallel.group().communicator(static_cast<int>(r)).device()));
    }
    std::vector<run::Batch*> pointers;
    for (run::Batch& b : batches)
      pointers.push_back(&b);
    auto forward = run::forward;
    parallel.step(pointers, forward, 0.01);
    for (int r = 1; r < parallel.local_size(); ++r)
      ASSERT_EQ(run::parameters_of(parallel.replica(r)), run::parameters_of(parallel.replica(0)))
          << "replica " << r << " after step " << step;
  }
  EXPECT_NE(run::parameters_of(model), start);  // it did train
}

TEST(DataParallel, ReplicasOnOneKindOfDeviceStayIdenticalStepAfterStep) {
  expect_replicas_stay_identical({Device::ndarray(), Device::ndarray(), Device::ndarray()});
  expect_replicas_stay_identical({Device::cpu(), Device::cpu()});
}

TEST(DataParallel, AnEmptyDeviceListIsRefused) {
  const Device device = Device::ndarray().autodiff();
  run::Mlp model{nn::LinearConfig{4, 8}.init(device), nn::LinearConfig{8, 3}.init(device)};
  optim::Adam optimizer = optim::AdamConfig{}.init();
  EXPECT_THROW(DataParallel<run::Mlp>(model, optimizer, {}), InvalidArgument);
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                     double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i]))) << "parameter " << i;
}

TEST(DataParallel, OneDeviceThroughTheGroupIsTheSingleDeviceRunExactly) {
  const ::ember::test::TempDir a("ember-dp-single"), b("ember-dp-one");
  const std::vector<double> single = run::train(Device::ndarray(), {}, a.path());
  EXPECT_EQ(run::train(Device::ndarray(), {Device::ndarray()}, b.path()), single);
}

TEST(DataParallel, NDevicesEndWhereOneDeviceOnTheWholeBatchesEnds) {
  const ::ember::test::TempDir a("ember-dp-single"), b("ember-dp-three"), c("ember-dp-mixed");
  const std::vector<double> single = run::train(Device::ndarray(), {}, a.path());
  // Batches of 12 and a last of 6, cut 4 + 4 + 4 and 2 + 2 + 2 over three ranks, 3 + 3 + 2 + 2 + 2
  // and 2 + 1 + 1 + 1 + 1 over five (each rank's loss weighted by its share); float sums in
  // another order: a float tolerance.
  for (std::size_t ranks : {3, 5}) {
    expect_near_all(
        run::train(Device::ndarray(), std::vector<Device>(ranks, Device::ndarray()), b.path()),
        single, 1e-5);
  }
  expect_near_all(
      run::train(Device::ndarray(), {Device::cpu(), Device::flex(), Device::ndarray()}, c.path()),
      single, 1e-4);
}

}  // namespace
}  // namespace ember::train
