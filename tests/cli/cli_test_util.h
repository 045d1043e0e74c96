// What the tests of the ember command share: running it as a user does, and the shape of its
// failures ("ember: <message>" and exit status 1).
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ember::test {

struct CommandRun {
  int status;          ///< the exit status; -1 when the command did not exit normally
  std::string output;  ///< stdout and stderr together
};

/// Runs `<prefix> ember <arguments>` (as a shell would split them; prefix: env, taskset).
inline CommandRun ember(const std::string& arguments, const std::string& prefix = "") {
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
inline void expect_failure(const CommandRun& run, const std::string& message) {
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("ember: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(message), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("terminate called"), std::string::npos) << run.output;
}

}  // namespace ember::test
