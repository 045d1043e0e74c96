// The server under hostile and broken clients: every refusal is an error reply naming why, a
// broken stream closes only its own connection, and the server goes on serving everyone else.
#include <gtest/gtest.h>

#include <sys/uio.h>

#include <chrono>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "remote/remote_test_util.h"
#include "wire/channel.h"
#include "wire/op_codec.h"
#include "wire/socket.h"

namespace ember::test {
namespace {

using namespace std::chrono_literals;

/// A connection that sends raw bytes and reads what the server answers.
struct RawConnection {
  explicit RawConnection(const Server& server)
      : socket(wire::Socket::connect(loopback(server), 5s)), channel(socket, 1 << 20) {}

  void send_bytes(std::vector<uint32_t> words) {
    iovec piece{words.data(), words.size() * sizeof(uint32_t)};
    socket.write_all(std::span(&piece, 1));
  }
  /// The error the server replies with; fails the test on any other reply.
  std::string error_reply() {
    wire::Received reply = channel.receive();
    const auto root = reply.root<proto::Reply>();
    EXPECT_TRUE(root.isError());
    return root.isError() ? root.getError().cStr() : "";
  }
  /// Whether the server closed the connection.
  bool closed() {
    try {
      channel.receive();
      return false;
    } catch (const ExecutionError&) {
      return true;
    }
  }

  wire::Socket socket;
  wire::Channel channel;
};

/// The server still answers a well-behaved client.
void expect_serving(const Server& server) {
  RawSession session(loopback(server));
  session.open(0);
  session.upload(1, TensorData(std::vector<float>{1, 2}, Shape{2}));
  session.run(ir::Binary{ir::BinaryOp::Add}, {1, 1}, {2});
  EXPECT_EQ(session.download(2), TensorData(std::vector<float>{2, 4}, Shape{2}));
}

TEST(ServerSecurity, RefusesAnotherProtocolVersion) {
  Server server(test_server_options());
  RawConnection raw(server);
  capnp::MallocMessageBuilder hello;
  auto fields = hello.initRoot<proto::Request>().initHello();
  fields.setVersion(proto::PROTOCOL_VERSION + 1);
  raw.channel.send(hello);
  EXPECT_NE(
      raw.error_reply().find("protocol version " + std::to_string(proto::PROTOCOL_VERSION + 1)),
      std::string::npos);
  EXPECT_TRUE(raw.closed());
  expect_serving(server);
}

TEST(ServerSecurity, RefusesAMissingOrWrongCredential) {
  ServeOptions options = test_server_options();
  options.credential = "correct horse";
  Server server(std::move(options));
  for (const std::string& credential : {std::string(), std::string("wrong horse")}) {
    try {
      RawSession session(loopback(server), {credential, ""});
      ADD_FAILURE() << "credential '" << credential << "' was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("credential is missing or wrong"), std::string::npos)
          << e.what();
    }
  }
  RawSession session(loopback(server), {"correct horse", ""});
  session.open(0);
}

TEST(ServerSecurity, RefusesRequestsBeforeHello) {
  Server server(test_server_options());
  RawConnection raw(server);
  capnp::MallocMessageBuilder open;
  open.initRoot<proto::Request>().setOpen(0);
  raw.channel.send(open);
  EXPECT_NE(raw.error_reply().find("first request must be hello"), std::string::npos);
  EXPECT_TRUE(raw.closed());
}

TEST(ServerSecurity, RefusesOversizedAndMalformedFraming) {
  Server server(test_server_options());
  {  // one segment of 2^32 - 1 words: refused before anything is allocated for it
    RawConnection raw(server);
    raw.send_bytes({0, 0xffffffffu});
    EXPECT_NE(raw.error_reply().find("over the limit"), std::string::npos);
    EXPECT_TRUE(raw.closed());
  }
  {  // a segment table of 2^20 segments
    RawConnection raw(server);
    raw.send_bytes({1u << 20, 1});
    EXPECT_NE(raw.error_reply().find("segments"), std::string::npos);
    EXPECT_TRUE(raw.closed());
  }
  {  // a pointer out of its segment
    RawConnection raw(server);
    raw.send_bytes({0, 1, 0x00000100u, 0x00010000u});
    EXPECT_NE(raw.error_reply().find("malformed message"), std::string::npos);
    EXPECT_TRUE(raw.closed());
  }
  expect_serving(server);
}

TEST(ServerSecurity, AnUploadedBoolByteOtherThanZeroOrOneFailsItsTensorOnly) {
  Server server(test_server_options());
  RawSession session(loopback(server));
  session.open(0);
  const std::vector<std::byte> bytes{std::byte{1}, std::byte{2}, std::byte{0}};
  session.upload_bytes(1, Shape{3}, DType::Bool, bytes);
  EXPECT_NE(session.sync_error().find("bool byte 1 is 2"), std::string::npos);
  // The stream went on past the bytes: the session still runs what follows.
  session.upload(2, TensorData(std::vector<float>{1, 2}, Shape{2}));
  session.run(ir::Binary{ir::BinaryOp::Add}, {2, 2}, {3});
  EXPECT_EQ(session.download(3), TensorData(std::vector<float>{2, 4}, Shape{2}));
}

TEST(ServerSecurity, SurvivesTruncatedFrames) {
  Server server(test_server_options());
  for (std::size_t cut = 1; cut < 6; ++cut) {
    RawConnection raw(server);
    std::vector<uint32_t> frame{0, 8, 1, 2, 3, 4, 5, 6};
    frame.resize(cut);
    raw.send_bytes(frame);
    raw.socket.shutdown();
  }
  expect_serving(server);
}

TEST(ServerSecurity, SurvivesRandomFrames) {
  Server server(test_server_options());
  std::mt19937 random(1234);
  for (int trial = 0; trial < 200; ++trial) {
    RawConnection raw(server);
    const uint32_t words = random() % 16;
    std::vector<uint32_t> frame{0, words};
    for (uint32_t i = 0; i < 2 * words; ++i)
      frame.push_back(static_cast<uint32_t>(random()));
    raw.send_bytes(frame);
    // Whatever the server makes of it, it answers or closes, and never crashes.
    try {
      raw.channel.receive();
    } catch (const Error&) {
    }
  }
  expect_serving(server);
}

TEST(ServerSecurity, ASessionCannotNameAnotherSessionsTensors) {
  Server server(test_server_options());
  RawSession owner(loopback(server));
  owner.open(0);
  const TensorData secret(std::vector<float>{7, 8, 9}, Shape{3});
  owner.upload(1, secret);
  RawSession intruder(loopback(server));
  intruder.open(0);
  intruder.run(ir::Unary{ir::UnaryOp::Neg}, {1}, {2});
  EXPECT_NE(intruder.sync_error().find("unknown tensor 1"), std::string::npos);
  EXPECT_EQ(owner.download(1), secret);
}

/// Defines sequence 7: out = x * x, then out + x (x its one outside tensor), with the outputs
/// dead that the client no longer holds.
void define_square_plus(RawSession& session, uint64_t internal_reference,
                        std::vector<uint64_t> dead = {}) {
  capnp::MallocMessageBuilder message;
  auto sequence = message.initRoot<proto::Request>().initDefine();
  sequence.setId(7);
  sequence.setExternals(1);
  auto calls = sequence.initCalls(2);
  wire::encode_op(ir::Binary{ir::BinaryOp::Mul}, calls[0]);
  calls[0].initInputs(2);  // the outside tensor twice (references 0)
  calls[0].initOutputs(1);
  wire::encode_op(ir::Binary{ir::BinaryOp::Add}, calls[1]);
  auto inputs = calls[1].initInputs(2);
  inputs.set(0, internal_reference);
  inputs.set(1, 0);
  calls[1].initOutputs(1);
  sequence.setDead(kj::arrayPtr(dead.data(), dead.size()));
  session.link().send(message);
}

void send_replay(RawSession& session, uint64_t sequence, std::vector<uint64_t> inputs,
                 uint64_t first_output) {
  capnp::MallocMessageBuilder message;
  auto replay = message.initRoot<proto::Request>().initReplay();
  replay.setSequence(sequence);
  replay.setInputs(kj::arrayPtr(inputs.data(), inputs.size()));
  replay.setFirstOutput(first_output);
  session.link().send(message);
}

TEST(ServerSecurity, ReplaysAKeptSequenceAndRefusesMisnamedOnes) {
  Server server(test_server_options());
  {
    RawSession session(loopback(server));
    session.open(0);
    define_square_plus(session, uint64_t{1} << 63);  // the mul's output
    session.upload(1, TensorData(std::vector<float>{2, 3}, Shape{2}));
    send_replay(session, 7, {1}, 10);  // 10 = x * x, 11 = x * x + x
    send_replay(session, 7, {11}, 20);
    EXPECT_EQ(session.download(11), TensorData(std::vector<float>{6, 12}, Shape{2}));
    EXPECT_EQ(session.download(21), TensorData(std::vector<float>{42, 156}, Shape{2}));
  }
  const auto refused = [&](auto&& misuse, const std::string& why) {
    RawSession session(loopback(server));
    session.open(0);
    session.upload(1, TensorData(std::vector<float>{2, 3}, Shape{2}));
    misuse(session);
    EXPECT_NE(session.sync_error().find(why), std::string::npos) << why;
  };
  refused([](RawSession& s) { send_replay(s, 8, {1}, 10); }, "unknown sequence 8");
  refused(
      [](RawSession& s) {
        define_square_plus(s, uint64_t{1} << 63);
        send_replay(s, 7, {1, 1}, 10);
      },
      "takes 1 tensors, the replay passes 2");
  refused([](RawSession& s) { define_square_plus(s, (uint64_t{1} << 63) + 1); },
          "names no tensor before it");
  const uint64_t output0 = uint64_t{1} << 63;
  refused([&](RawSession& s) { define_square_plus(s, output0, {output0 + 2}); },
          "names no tensor of the sequence, or is named twice");
  refused([&](RawSession& s) { define_square_plus(s, output0, {1}); },  // one external only
          "dead reference 1 names no tensor");
  refused(
      [&](RawSession& s) {
        define_square_plus(s, output0, {0, 0});
      },
      "dead reference 0 names no tensor of the sequence, or is named twice");
  refused(
      [](RawSession& s) {
        define_square_plus(s, uint64_t{1} << 63);
        send_replay(s, 7, {1}, 1);  // its outputs would take the upload's id
      },
      "tensor 1 exists already");
}

TEST(ServerSecurity, AReplayDropsWhatTheClientLetGoOnceNothingReadsIt) {
  Server server(test_server_options());
  RawSession session(loopback(server));
  session.open(0);
  // The client let x * x (output 0) and x (external 0) go.
  define_square_plus(session, uint64_t{1} << 63, {0, uint64_t{1} << 63});
  session.upload(1, TensorData(std::vector<float>{2, 3}, Shape{2}));
  send_replay(session, 7, {1}, 10);
  // The add read both before they went: its result is right, and only it is left.
  EXPECT_EQ(session.download(11), TensorData(std::vector<float>{6, 12}, Shape{2}));
  EXPECT_EQ(server.session_bytes(), 2 * sizeof(float));
  session.run(ir::Unary{ir::UnaryOp::Neg}, {10}, {12});
  EXPECT_NE(session.sync_error().find("unknown tensor 10"), std::string::npos);
}

TEST(ServerSecurity, ASequencesDeclaredExternalsSizeNothingTheServerAllocates) {
  Server server(test_server_options());
  RawSession session(loopback(server));
  session.open(0);
  // 2^32 - 1 externals declared, one read, and it dead: the count is the client's word only.
  capnp::MallocMessageBuilder message;
  auto sequence = message.initRoot<proto::Request>().initDefine();
  sequence.setId(7);
  sequence.setExternals(0xFFFFFFFFu);
  auto calls = sequence.initCalls(1);
  wire::encode_op(ir::Unary{ir::UnaryOp::Neg}, calls[0]);
  calls[0].initInputs(1);  // reference 0
  calls[0].initOutputs(1);
  const std::vector<uint64_t> dead{0};
  sequence.setDead(kj::arrayPtr(dead.data(), dead.size()));
  session.link().send(message);
  session.upload(1, TensorData(std::vector<float>{2, 3}, Shape{2}));
  send_replay(session, 7, {1}, 10);
  EXPECT_NE(session.sync_error().find("takes 4294967295 tensors, the replay passes 1"),
            std::string::npos);
}

TEST(ServerSecurity, RefusesWhatOverrunsTheSessionsLimits) {
  ServeOptions options = test_server_options();
  options.max_session_bytes = 1024;
  Server server(std::move(options));
  RawSession session(loopback(server));
  session.open(0);
  session.upload(1, TensorData(std::vector<float>(200, 1.0f), Shape{200}));  // 800 bytes
  // The op's 800 bytes of output would take the session past 1024: it fails, the session lives.
  session.run(ir::Unary{ir::UnaryOp::Neg}, {1}, {2});
  EXPECT_NE(session.sync_error().find("of the server's limit of 1024"), std::string::npos);
  EXPECT_EQ(session.download(1), TensorData(std::vector<float>(200, 1.0f), Shape{200}));
}

/// The error the server answers with when a fresh session sends the requests set writes (each its
/// own message), then a sync; "" when it answers ok.
std::string refusal_of(const Server& server,
                       const std::vector<std::function<void(proto::Request::Builder)>>& requests) {
  RawSession session(loopback(server));
  session.open(0);
  try {
    for (const auto& set : requests) {
      capnp::MallocMessageBuilder request;
      set(request.initRoot<proto::Request>());
      session.link().send(request);
    }
    return session.sync_error();
  } catch (const ExecutionError& e) {
    return e.what();
  }
}

/// Settings of valid dtypes with the given precision.
void set_settings(proto::Settings::Builder settings, uint8_t float_dtype, uint8_t precision) {
  settings.setFloatDtype(float_dtype);
  settings.setIntDtype(static_cast<uint8_t>(DType::I64));
  settings.setBoolDtype(static_cast<uint8_t>(DType::Bool));
  settings.setF32MatmulPrecision(precision);
}

TEST(ServerSecurity, RefusesHostileSettingsAndTimestamps) {
  Server server(test_server_options());
  const auto f32 = static_cast<uint8_t>(DType::F32);
  const auto i32 = static_cast<uint8_t>(DType::I32);
  EXPECT_NE(
      refusal_of(server, {[&](auto request) { set_settings(request.initConfigure(), i32, 0); }})
          .find("float dtype " + std::to_string(i32) + " names no dtype of its kind"),
      std::string::npos);
  EXPECT_NE(
      refusal_of(server, {[&](auto request) { set_settings(request.initConfigure(), f32, 9); }})
          .find("f32 matmul precision 9 names no precision"),
      std::string::npos);
  EXPECT_NE(refusal_of(server, {[](auto request) {
                         auto elapsed = request.initElapsed();
                         elapsed.setFrom(5);
                         elapsed.setTo(6);
                       }})
                .find("unknown timestamp 5"),
            std::string::npos);
  const std::vector<uint64_t> unknown{7};
  EXPECT_NE(refusal_of(server, {[&](auto request) {
                         request.setReleaseTimestamps(kj::arrayPtr(unknown.data(), unknown.size()));
                       }})
                .find("release of unknown timestamp 7"),
            std::string::npos);
  const auto timestamp_one = [](auto request) { request.setTimestamp(1); };
  EXPECT_NE(refusal_of(server, {timestamp_one, timestamp_one}).find("timestamp 1 exists already"),
            std::string::npos);
  expect_serving(server);
}

TEST(ServerSecurity, FreesEverythingOfAClientKilledMidBatch) {
  Server server(test_server_options());
  const Device cpu = Device::cpu();
  cpu.sync();
  const uint64_t baseline = cpu.memory_pool_usage()->bytes_in_use;
  {
    RawSession session(loopback(server));
    session.open(0);
    session.upload(1, TensorData(std::vector<float>(1 << 18, 2.0f), Shape{1 << 18}));
    session.run(ir::Binary{ir::BinaryOp::Mul}, {1, 1}, {2});
    session.run(ir::Unary{ir::UnaryOp::Exp}, {2}, {3});
    EXPECT_TRUE(session.sync_error().empty());
    EXPECT_GT(server.session_bytes(), 0u);
    // Half an upload, then the client is gone.
    capnp::MallocMessageBuilder begin;
    auto upload = begin.initRoot<proto::Request>().initUpload();
    upload.setId(4);
    wire::encode_meta(Shape{1024}, DType::F32, upload.initMeta());
    session.link().send(begin);
  }
  wait_until_sessions_closed(server);
  EXPECT_EQ(server.open_sessions(), 0u);
  EXPECT_EQ(server.session_bytes(), 0u);
  cpu.sync();
  EXPECT_EQ(cpu.memory_pool_usage()->bytes_in_use, baseline);
}

TEST(ServerSecurity, Serves64ClientsAtOnce) {
  Server server(test_server_options());
  std::vector<std::thread> clients;
  std::vector<int> correct(64, 0);
  for (int client = 0; client < 64; ++client) {
    clients.emplace_back([&, client] {
      RawSession session(loopback(server));
      session.open(0);
      const float value = static_cast<float>(client);
      session.upload(1, TensorData(std::vector<float>(1000, value), Shape{1000}));
      for (uint64_t step = 1; step <= 20; ++step)
        session.run(ir::BinaryScalar{ir::BinaryOp::Add, Scalar(1.0), false}, {step}, {step + 1});
      correct[client] =
          session.download(21) == TensorData(std::vector<float>(1000, value + 20.0f), Shape{1000});
    });
  }
  for (std::thread& client : clients)
    client.join();
  EXPECT_EQ(std::count(correct.begin(), correct.end(), 1), 64);
}

/// Grows H from 1 to 2^20 and shrinks W from 2^20 to 1, there and back (the gradient).
void expect_interpolation_in_its_memory(RawSession& session) {
  constexpr int64_t n = int64_t{1} << 20;
  const ir::Interpolate interpolate{ir::InterpolateMode::Nearest, {n, 1}, false, {}};
  session.run(ir::Full{Shape{1, 1, 1, n}, DType::F32, Scalar(1.5)}, {}, {1});
  session.run(interpolate, {1}, {2});
  session.run(ir::InterpolateGrad{interpolate, Shape{1, 1, 1, n}}, {2}, {3});  // the reverse
  EXPECT_EQ(session.sync_error(), "");
  EXPECT_EQ(session.download(2),
            TensorData(std::vector<float>(static_cast<std::size_t>(n), 1.5F), Shape{1, 1, n, 1}));
  // Every output reads input (0, 0): its gradient is their sum, the others' zero.
  std::vector<float> gradient(static_cast<std::size_t>(n), 0.0F);
  gradient[0] = 1.5F * static_cast<float>(n);
  EXPECT_EQ(session.download(3), TensorData(gradient, Shape{1, 1, 1, n}));
}

// Found reviewing the kernels a fuzzed session reaches (tests/fuzz/remote_session_fuzz.cpp):
// resampled dim by dim in dim order, an interpolation that grows H from 1 to n and shrinks W from
// n to 1 held n * n values between its passes, from 4 MiB in and out: 2^40 doubles here
// (std::bad_alloc, which ended the connection on ndarray and read as "out of memory" on cpu);
// at n = 2^16, 32 GiB of zeros for the server's memory to hold. The passes now shrink first.
TEST(ServerSecurity, AnInterpolationTakesNoMoreMemoryThanItsInputAndOutput) {
  ServeOptions options = test_server_options();
  options.devices = {Device::ndarray(),
                     Device::cpu()};  // cpu runs ndarray's kernel (flex has none)
  Server server(std::move(options));
  for (uint32_t device : {0, 1}) {
    RawSession session(loopback(server));
    session.open(device);
    expect_interpolation_in_its_memory(session);
  }
}

// Found with the interpolation above: the ndarray convolution stored a tap per pair of output and
// kernel positions along each dim, 16 bytes per multiply-add of a long 1-d kernel: this
// [1, 1, 3n] x [1, 1, n] convolution from 4 MiB of tensors asked 2^37 taps (2 TiB). Its tables
// are now bounded: the op fails, the session goes on.
TEST(ServerSecurity, AConvolutionWhoseTablesWouldOutgrowItsTensorsFailsAlone) {
  ServeOptions options = test_server_options();
  options.devices = {Device::ndarray()};
  Server server(std::move(options));
  RawSession session(loopback(server));
  session.open(0);
  constexpr int64_t n = int64_t{1} << 18;
  session.run(ir::Full{Shape{1, 1, 3 * n}, DType::F32, Scalar(1.0)}, {}, {1});
  session.run(ir::Full{Shape{1, 1, n}, DType::F32, Scalar(1.0)}, {}, {2});
  session.run(ir::Conv{{{1}, {0}, {1}, {0}, 1, false}}, {1, 2}, {3});
  const std::string error = session.sync_error();
  EXPECT_NE(error.find("the reference kernel's tables hold at most 16777216"), std::string::npos)
      << error;
  session.upload(4, TensorData(std::vector<float>{1, 2}, Shape{2}));
  session.run(ir::Binary{ir::BinaryOp::Add}, {4, 4}, {5});
  EXPECT_EQ(session.download(5), TensorData(std::vector<float>{2, 4}, Shape{2}));
}

// Found by tests/fuzz/remote_session_fuzz.cpp (UndefinedBehaviorSanitizer): a slice whose step
// passes its dim multiplied the dim's stride by the step, which overflowed int64 (ndarray), and
// flex's ceil of its length overflowed too (end - start + step - 1). Such a step takes one
// element, and its stride is never walked.
TEST(ServerSecurity, ASliceWithAStepPastItsDimTakesOneElement) {
  ServeOptions options = test_server_options();
  options.devices = {Device::ndarray(), Device::cpu()};
  Server server(std::move(options));
  constexpr int64_t huge = std::numeric_limits<int64_t>::max();
  for (uint32_t device : {0, 1}) {
    RawSession session(loopback(server));
    session.open(device);
    session.upload(
        1, TensorData(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Shape{4, 3}));
    session.run(ir::Slice{{{1, 4, huge}, {0, 3, huge - 1}}}, {1}, {2});
    EXPECT_EQ(session.download(2), TensorData(std::vector<float>{3}, Shape{1, 1}));
    session.run(ir::Slice{{{1, 4, huge}, {0, 3, 1}}}, {1}, {3});
    EXPECT_EQ(session.download(3), TensorData(std::vector<float>{3, 4, 5}, Shape{1, 3}));
  }
}

TEST(ServerSecurity, RefusesConnectionsOverItsLimitAndReapsThoseThatEnded) {
  ServeOptions options = test_server_options();
  options.max_connections = 2;
  Server server(std::move(options));
  {
    RawSession first(loopback(server));
    RawSession second(loopback(server));
    first.open(0);
    second.open(0);
    try {
      RawSession third(loopback(server));
      ADD_FAILURE() << "a third connection was served";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("at most 2 connections"), std::string::npos) << e.what();
    }
  }
  // Those two left: their threads are joined when the next connections come, which are served
  // once the threads have ended, a moment after their sessions closed.
  // Without the reaping, the two would hold both places for ever.
  wait_until_sessions_closed(server);
  const auto connects_within_a_second = [&] {
    for (int wait = 0; wait < 100; ++wait) {
      try {
        RawSession probe(loopback(server));
        return true;
      } catch (const ConfigError&) {
        std::this_thread::sleep_for(10ms);
      }
    }
    return false;
  };
  for (int again = 0; again < 20; ++again)
    EXPECT_TRUE(connects_within_a_second());
  // The last probes' threads may hold both places a moment after they closed (a loaded CI
  // machine refused the session here once): served within a second all the same.
  for (int wait = 0;; ++wait) {
    try {
      expect_serving(server);
      break;
    } catch (const ConfigError&) {
      if (wait == 100) throw;
      std::this_thread::sleep_for(10ms);
    }
  }
}

}  // namespace
}  // namespace ember::test
