// The server's bounds on what one connection may cost: a connection that does not complete its
// hello in time is closed (so idle ones cannot hold the connection slots), and one batch may make
// and compute only so much (so one small request cannot occupy the device for minutes), the
// session going on after the refusal.
#include <gtest/gtest.h>

#include <sys/uio.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "ir/ops.h"
#include "remote/remote_test_util.h"
#include "serve/work_budget.h"
#include "wire/channel.h"
#include "wire/socket.h"

namespace ember::test {
namespace {

using namespace std::chrono_literals;

/// What a read of socket ends with: "" if bytes came, else the error's message.
std::string read_outcome(wire::Socket& socket) {
  std::byte byte{};
  try {
    socket.read_exactly(std::span(&byte, 1));
    return "";
  } catch (const ExecutionError& e) {
    return e.what();
  }
}

ServeOptions with_hello_timeout(std::chrono::milliseconds limit) {
  ServeOptions options = test_server_options();
  options.hello_timeout = limit;
  return options;
}

TEST(ServerBudget, ClosesAConnectionThatSaysNoHelloInTime) {
  Server server(with_hello_timeout(300ms));
  wire::Socket silent = wire::Socket::connect(loopback(server), 10s);
  const auto start = std::chrono::steady_clock::now();
  // The server closes it: the read ends with the peer's close, not with this side's 10 s timeout.
  EXPECT_NE(read_outcome(silent).find("closed by the peer"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(ServerBudget, ClosesAConnectionTricklingItsHello) {
  Server server(with_hello_timeout(300ms));
  wire::Socket trickling = wire::Socket::connect(loopback(server), 10s);
  // A frame's segment table announcing a large message, sent a byte at a time: every read of the
  // server gets bytes well within any per-read timeout, yet the hello never completes.
  std::vector<uint8_t> header{0, 0, 0, 0, 0, 1, 0, 0};
  bool refused = false;
  for (int i = 0; i < 40 && !refused; ++i) {
    uint8_t byte = header[static_cast<std::size_t>(i) % header.size()];
    iovec piece{&byte, 1};
    try {
      trickling.write_all(std::span(&piece, 1));
    } catch (const ExecutionError&) {
      refused = true;
    }
    std::this_thread::sleep_for(50ms);
  }
  // Closed by the server, not ended by this side's own 10 s read timeout.
  const std::string outcome = refused ? "" : read_outcome(trickling);
  EXPECT_TRUE(refused || outcome.find("closed by the peer") != std::string::npos ||
              outcome.find("reset") != std::string::npos)
      << "a connection trickling bytes for 2 s outlived the 300 ms hello deadline: " << outcome;
}

TEST(ServerBudget, AGreetedSessionOutlivesTheHelloDeadline) {
  Server server(with_hello_timeout(200ms));
  RawSession session(loopback(server));
  session.open(0);
  // Past the deadline, the session goes on.
  std::this_thread::sleep_for(500ms);
  session.upload(1, TensorData(std::vector<float>{1, 2}, Shape{2}));
  session.run(ir::Binary{ir::BinaryOp::Add}, {1, 1}, {2});
  EXPECT_EQ(session.download(2), TensorData(std::vector<float>{2, 4}, Shape{2}));
}

/// A server of options and a session open on its device.
struct ServedSession {
  explicit ServedSession(ServeOptions options)
      : server(std::move(options)), session(loopback(server)) {
    session.open(0);
  }
  Server server;
  RawSession session;
};

/// The session's next sync fails with an error naming each of parts.
void expect_sync_error_naming(RawSession& session, const std::vector<std::string>& parts) {
  const std::string error = session.sync_error();
  for (const std::string& part : parts)
    EXPECT_NE(error.find(part), std::string::npos) << part << " in: " << error;
}

TEST(ServerBudget, RefusesABatchMakingTooManyElementsAndGoesOn) {
  ServeOptions options = test_server_options();
  options.max_batch_elements = 1000;
  ServedSession served(std::move(options));
  RawSession& session = served.session;
  session.run(ir::Full{Shape{40, 50}, DType::U8, Scalar(int64_t{7})}, {}, {1});
  expect_sync_error_naming(
      session, {"'full'", "elements made 2000", "limit of 1000", "--max-batch-elements"});
  // The session goes on: a batch within the budget runs.
  session.run(ir::Full{Shape{4}, DType::F32, Scalar(1.5)}, {}, {2});
  EXPECT_EQ(session.download(2), TensorData(std::vector<float>(4, 1.5f), Shape{4}));
}

TEST(ServerBudget, RefusesAMatmulOfTooManyProductsAndGoesOn) {
  ServeOptions options = test_server_options();
  options.max_batch_work = 50'000;
  ServedSession served(std::move(options));
  RawSession& session = served.session;
  session.upload(1, TensorData(std::vector<float>(10 * 1000, 0.5f), Shape{10, 1000}));
  session.upload(2, TensorData(std::vector<float>(1000 * 10, 2.0f), Shape{1000, 10}));
  // 10 x 10 results of 1000 products each: 100 000 element operations.
  session.run(ir::Matmul{}, {1, 2}, {3});
  expect_sync_error_naming(
      session, {"'matmul'", "element operations 1e+05", "limit of 5e+04", "--max-batch-work"});
  // The same contraction over 100 products each is within it.
  session.upload(4, TensorData(std::vector<float>(10 * 100, 0.5f), Shape{10, 100}));
  session.upload(5, TensorData(std::vector<float>(100 * 10, 2.0f), Shape{100, 10}));
  session.run(ir::Matmul{}, {4, 5}, {6});
  EXPECT_EQ(session.download(6), TensorData(std::vector<float>(100, 100.0f), Shape{10, 10}));
}

/// op's estimated work on inputs, its outputs as ir::infer gives them.
double work_of(const ir::Op& op, const std::vector<ir::TensorMeta>& inputs) {
  const ir::OutputMetas outputs = ir::infer(op, inputs);
  return serve::op_work(op, inputs, {outputs.begin(), outputs.end()});
}

TEST(ServerBudget, CountsTheProductsOfOpsThatContract) {
  const ir::ConvGeometry geometry{{1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, false};
  const ir::TensorMeta x{Shape{2, 3, 8, 8}, DType::F32};
  const ir::TensorMeta weight{Shape{4, 3, 3, 3}, DType::F32};
  // 2 x 4 x 6 x 6 outputs, each the sum of 3 x 3 x 3 products.
  EXPECT_EQ(work_of(ir::Conv{geometry}, {x, weight}), 2 * 4 * 6 * 6 * 27);
  // The weight's gradient computes the same products, grouped by weight element.
  const ir::TensorMeta grad_output{Shape{2, 4, 6, 6}, DType::F32};
  EXPECT_EQ(work_of(ir::ConvWeightGrad{geometry, Shape{4, 3, 3, 3}}, {x, grad_output}),
            2 * 4 * 6 * 6 * 27);
  // Attention: batch 2, 5 queries, 7 keys, E 8, Ev 4: q k^T's 2 x 5 x 7 x 8 products, then the
  // scores times v's 2 x 5 x 7 x 4.
  EXPECT_EQ(work_of(ir::Attention{0.5, false}, {{Shape{2, 5, 8}, DType::F32},
                                                {Shape{2, 7, 8}, DType::F32},
                                                {Shape{2, 7, 4}, DType::F32}}),
            2 * 5 * 7 * (8 + 4));
  // An elementwise op: the elements it reads and makes.
  EXPECT_EQ(
      work_of(ir::Binary{ir::BinaryOp::Add}, {{Shape{3, 4}, DType::F32}, {Shape{4}, DType::F32}}),
      12 + 4 + 12);
}

}  // namespace
}  // namespace ember::test
