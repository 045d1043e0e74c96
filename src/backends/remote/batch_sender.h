// How the remote backend sends a batch of queued ops: as a replay of a sequence the server keeps
// when the batch has the form (ops, and which earlier op or outside tensor each input is) of one
// sent before, defining the sequence the first time. A training step's batches thus go as a few
// ids each step after the first, and the server decodes their ops once (docs/backends/remote.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/remote/remote_link.h"
#include "ir/ops.h"

namespace ember::backend::remote {

/// An op waiting in the batch, with the ids it reads and makes.
struct QueuedOp {
  ir::Op op;
  std::vector<uint64_t> inputs;
  std::vector<uint64_t> outputs;
};

class BatchSender {
 public:
  /// Sends batch (not empty; its outputs are consecutive ids, the newest of the session) on link.
  /// The ids of released that the batch reads or makes go with it, to be dropped by the server as
  /// soon as the batch no longer reads them, and leave released; the others stay, for the caller
  /// to send after the batch.
  void send(std::span<const QueuedOp> batch, std::vector<uint64_t>& released, Link& link);

 private:
  /// As many forms as a session keeps at most (past them a batch goes as a plain run).
  static constexpr std::size_t kMaxKept = 256;

  std::unordered_map<std::string, uint64_t> kept_;  // a form's encoding -> its sequence id
};

}  // namespace ember::backend::remote
