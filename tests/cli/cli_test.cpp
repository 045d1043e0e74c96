// The ember command as a user runs it: every failure is one line "ember: <message>" on stderr and
// exit status 1, never an abort (exit 134) or CLI11's own status.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_test_util.h"
#include "support/temp_dir.h"

namespace ember::test {
namespace {

TEST(Cli, ARunDirectoryThatCannotBeCreatedIsAClearError) {
  const TempDir dir("ember-cli");
  std::ofstream(dir / "file") << "not a directory";
  const std::string file = (dir / "file").string();
  // --out naming a file, and a directory below a file.
  expect_failure(ember("train fashion-mnist --device ndarray --epochs 1 --out " + file),
                 "cannot create directory " + file);
  expect_failure(ember("train fashion-mnist --device ndarray --epochs 1 --out " + file + "/run"),
                 "cannot create directory " + file + "/run");
}

TEST(Cli, OutOfRangeOptionsSayTheirLimit) {
  expect_failure(ember("train fashion-mnist --epochs 0"), "--epochs must be at least 1 (got 0)");
  expect_failure(ember("train fashion-mnist --batch-size 0"),
                 "--batch-size must be at least 1 (got 0)");
  expect_failure(ember("train fashion-mnist --batch-size -5"),
                 "--batch-size must be at least 1 (got -5)");
  expect_failure(ember("train fashion-mnist --lr -0.5"),
                 "--lr must be a positive number (got -0.5)");
}

TEST(Cli, PrecisionTakesF32Bf16OrF16) {
  expect_failure(ember("train fashion-mnist --precision f64"),
                 "--precision must be f32, bf16 or f16 (got 'f64')");
  expect_failure(ember("train fashion-mnist --precision BF16"),
                 "--precision must be f32, bf16 or f16 (got 'BF16')");
  expect_failure(ember("train fashion-mnist --precision"), "--precision");
  const CommandRun help = ember("train fashion-mnist --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("--precision"), std::string::npos) << help.output;
}

TEST(Cli, MalformedCommandLinesExitWithStatusOne) {
  expect_failure(ember("train fashion-mnist --epochs three"), "--epochs");
  expect_failure(ember("train fashion-mnist --no-such-flag"), "--no-such-flag");
  expect_failure(ember("no-such-command"), "subcommand");
  EXPECT_EQ(ember("--help").status, 0);
}

TEST(Cli, TheCpuThreadCountFollowsOmpNumThreadsAndTheAffinityMask) {
  // `ember devices` describes flex with its thread count.
  const CommandRun omp = ember("devices", "env -u EMBER_NUM_THREADS OMP_NUM_THREADS=3");
  EXPECT_NE(omp.output.find("3 threads"), std::string::npos) << omp.output;
  const CommandRun one_cpu =
      ember("devices", "env -u EMBER_NUM_THREADS -u OMP_NUM_THREADS taskset -c 0");
  EXPECT_NE(one_cpu.output.find("1 threads"), std::string::npos) << one_cpu.output;
}

TEST(Cli, EvalOfACorruptCheckpointIsAClearError) {
  const TempDir dir("ember-cli");
  std::ofstream(dir / "model.safetensors") << "garbage";
  expect_failure(ember("eval " + (dir / "model.safetensors").string() + " --device ndarray"),
                 "[load_safetensors]");
}

TEST(Cli, EvalTakesAPrecisionAndRefusesAnUnknownOneBeforeLoading) {
  const TempDir dir("ember-cli");
  std::ofstream(dir / "model.safetensors") << "garbage";
  const std::string eval = "eval " + (dir / "model.safetensors").string() + " --device ndarray";
  expect_failure(ember(eval + " --precision f64"),
                 "--precision must be f32, bf16 or f16 (got 'f64')");
  // bf16 is taken: the command goes on to the checkpoint, which is garbage.
  expect_failure(ember(eval + " --precision bf16"), "[load_safetensors]");
}

}  // namespace
}  // namespace ember::test
