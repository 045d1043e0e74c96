// A data-parallel run of two processes in two network namespaces joined by a veth pair that the
// test makes (and removes), launched as torchrun launches: RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT. Each process is this test binary running TrainingProcess.OneProcessOfARun; the
// parameters they end with must be those of the same run's two ranks in one process.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "ember/record/numpy.h"
#include "support/data_parallel_run.h"
#include "support/temp_dir.h"

namespace ember::test {
namespace {

constexpr const char* kOutputVariable = "EMBER_TEST_TRAINING_OUTPUT";

/// Two namespaces, 10.232.0.1 in the first and 10.232.0.2 in the second, over a veth pair.
class TwoNamespaces {
 public:
  TwoNamespaces() : tag_(std::to_string(getpid() % 100000)) {
    ready_ = run("ip netns add " + name(0)) && run("ip netns add " + name(1)) &&
             run("ip link add edp" + tag_ + "a type veth peer name edp" + tag_ + "b") &&
             run("ip link set edp" + tag_ + "a netns " + name(0)) &&
             run("ip link set edp" + tag_ + "b netns " + name(1)) && configure(0) && configure(1);
  }
  ~TwoNamespaces() {
    run("ip netns del " + name(0));  // takes its end of the pair, and so the pair, with it
    run("ip netns del " + name(1));
  }
  bool ready() const { return ready_; }
  std::string name(int i) const { return "ember-dp" + std::to_string(i) + "-" + tag_; }
  static std::string address(int i) { return "10.232.0." + std::to_string(i + 1); }

  static bool run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
  }

 private:
  bool configure(int i) const {
    const std::string inside = "ip netns exec " + name(i) + " ";
    const std::string link = "edp" + tag_ + (i == 0 ? "a" : "b");
    return run(inside + "ip addr add " + address(i) + "/24 dev " + link) &&
           run(inside + "ip link set " + link + " up") && run(inside + "ip link set lo up");
  }

  std::string tag_;
  bool ready_ = false;
};

TEST(TrainingProcess, OneProcessOfARun) {
  const char* output = std::getenv(kOutputVariable);
  if (output == nullptr) {
    GTEST_SKIP() << "one process of NetworkNamespaces.TwoProcessesTrainAsOneProcessWithTwoRanks, "
                    "which starts it with "
                 << kOutputVariable << " set";
  }
  const TempDir directory("ember-dp-process");
  const std::vector<double> parameters =
      data_parallel_run::train(Device::ndarray(), {Device::ndarray()}, directory.path());
  // A file per process, so that any launcher (torchrun too) can start them all with one setting.
  const char* rank = std::getenv("RANK");
  record::save_npy(std::string(output) + "-rank" + (rank != nullptr ? rank : "0") + ".npy",
                   TensorData(parameters, Shape{static_cast<int64_t>(parameters.size())}));
}

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(NetworkNamespaces, TwoProcessesTrainAsOneProcessWithTwoRanks) {
  if (geteuid() != 0) GTEST_SKIP() << "making network namespaces needs root (CI runs as root)";
  if (!TwoNamespaces::run("ip -V")) GTEST_SKIP() << "no `ip` command (Debian: iproute2)";
  const TwoNamespaces namespaces;
  ASSERT_TRUE(namespaces.ready()) << "as root, `ip netns add` and a veth pair failed";
  const TempDir files("ember-dp-namespaces");
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto log = [&](int rank) { return files / ("process" + std::to_string(rank) + ".log"); };
  std::vector<std::thread> processes;
  std::vector<int> status(2, -1);
  for (int rank = 0; rank < 2; ++rank) {
    // timeout: a run that hangs fails the test instead; the gtest sharding variables of ctest
    // must not leave the one test out.
    const std::string command =
        "timeout 120 ip netns exec " + namespaces.name(rank) +
        " env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX RANK=" + std::to_string(rank) +
        " WORLD_SIZE=2 MASTER_ADDR=" + TwoNamespaces::address(0) + " MASTER_PORT=29500 " +
        kOutputVariable + "=" + (files / "run").string() + " " + self +
        " --gtest_filter=TrainingProcess.OneProcessOfARun >" + log(rank).string() + " 2>&1";
    processes.emplace_back(
        [&status, rank, command] { status[rank] = std::system(command.c_str()); });
  }
  for (std::thread& process : processes)
    process.join();
  const TempDir here("ember-dp-one-process");
  const std::vector<double> expected = data_parallel_run::train(
      Device::ndarray(), {Device::ndarray(), Device::ndarray()}, here.path());
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(status[rank], 0) << "process " << rank << " failed:\n" << text_of(log(rank));
    const std::filesystem::path out = files / ("run-rank" + std::to_string(rank) + ".npy");
    EXPECT_EQ(record::load_npy(out).to_vector<double>(), expected) << "process " << rank;
  }
}

}  // namespace
}  // namespace ember::test
