// The ember command as a user runs it: every failure is one line "ember: <message>" on stderr and
// exit status 1, never an abort (exit 134) or CLI11's own status.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace ember::test {
namespace {

struct CommandRun {
  int status;          ///< the exit status; -1 when the command did not exit normally
  std::string output;  ///< stdout and stderr together
};

/// Runs `<prefix> ember <arguments>` (as a shell would split them; prefix: env, taskset).
CommandRun ember(const std::string& arguments, const std::string& prefix = "") {
  const std::string command = prefix + " " + EMBER_CLI_PATH + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer{};
  while (const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), pipe))
    output.append(buffer.data(), got);
  const int wait_status = pclose(pipe);
  return {WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1, output};
}

/// Expects a clean failure whose last line is "ember: ..." holding message.
void expect_failure(const CommandRun& run, const std::string& message) {
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("ember: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(message), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("terminate called"), std::string::npos) << run.output;
}

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
