// ProcessInfo::from_environment: the launcher's variables (torchrun-style, or mpirun's).
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "ember/collective.h"
#include "ember/error.h"

namespace ember::collective {
namespace {

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

/// name's value as an integer in [low, high]; InvalidArgument naming it otherwise.
int64_t integer(const char* name, const std::string& text, int64_t low, int64_t high) {
  std::size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < low || value > high) {
    throw InvalidArgument("[collective] " + std::string(name) + "='" + text +
                          "' is not an integer in [" + std::to_string(low) + ", " +
                          std::to_string(high) + "]");
  }
  return value;
}

std::string required(const char* name, int world_size) {
  std::optional<std::string> value = variable(name);
  if (!value) {
    throw InvalidArgument("[collective] WORLD_SIZE is " + std::to_string(world_size) + " but " +
                          name + " is not set: the launcher sets RANK, WORLD_SIZE, MASTER_ADDR " +
                          "and MASTER_PORT (docs/data_parallel.md)");
  }
  return *value;
}

}  // namespace

ProcessInfo ProcessInfo::from_environment() {
  const bool torchrun = variable("WORLD_SIZE").has_value();
  const char* size_name = torchrun ? "WORLD_SIZE" : "OMPI_COMM_WORLD_SIZE";
  const char* rank_name = torchrun ? "RANK" : "OMPI_COMM_WORLD_RANK";
  ProcessInfo info;
  const std::optional<std::string> size = variable(size_name);
  if (!size) return info;
  constexpr int64_t kMaxProcesses = 1 << 20;
  info.world_size = static_cast<int>(integer(size_name, *size, 1, kMaxProcesses));
  if (info.world_size == 1) return info;
  info.rank = static_cast<int>(
      integer(rank_name, required(rank_name, info.world_size), 0, info.world_size - 1));
  info.master_addr = required("MASTER_ADDR", info.world_size);
  info.master_port =
      static_cast<uint16_t>(integer("MASTER_PORT", required("MASTER_PORT", info.world_size), 1,
                                    std::numeric_limits<uint16_t>::max() - 1));
  // Under torchrun, its agent serves a store of its own on MASTER_PORT (and says so with this
  // variable): ember's store takes the next port.
  if (variable("TORCHELASTIC_USE_AGENT_STORE") == "True") ++info.master_port;
  return info;
}

}  // namespace ember::collective
