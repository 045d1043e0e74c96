// A server bound to an address other than loopback, reached from another network namespace over
// a veth pair that the test makes (and removes): a client without the credential, or with a wrong
// one, is refused before anything runs; one with it is served.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "ember/ember.h"
#include "remote/remote_test_util.h"

namespace ember::test {
namespace {

/// A namespace and a veth pair between it and this one: host_address here, the peer in it.
class VethPair {
 public:
  VethPair() : tag_(std::to_string(getpid() % 100000)) {
    const std::string ns = "ember-" + tag_;
    ready_ = run("ip netns add " + ns) &&
             run("ip link add emb" + tag_ + "h type veth peer name emb" + tag_ + "n") &&
             run("ip link set emb" + tag_ + "n netns " + ns) &&
             run("ip addr add 10.231.0.1/24 dev emb" + tag_ + "h") &&
             run("ip link set emb" + tag_ + "h up") &&
             run("ip netns exec " + ns + " ip addr add 10.231.0.2/24 dev emb" + tag_ + "n") &&
             run("ip netns exec " + ns + " ip link set emb" + tag_ + "n up");
  }
  ~VethPair() {
    run("ip link del emb" + tag_ + "h");
    run("ip netns del ember-" + tag_);
  }
  bool ready() const { return ready_; }
  /// Runs f on a thread that has entered the namespace (the rest of the process stays here).
  template <typename F>
  void run_inside(F&& f) const {
    std::thread inside([&] {
      const int ns = open(("/var/run/netns/ember-" + tag_).c_str(), O_RDONLY | O_CLOEXEC);
      ASSERT_GE(ns, 0);
      ASSERT_EQ(setns(ns, CLONE_NEWNET), 0);
      close(ns);
      f();
    });
    inside.join();
  }

 private:
  static bool run(const std::string& command) {
    return std::system((command + " 2>/dev/null").c_str()) == 0;
  }
  std::string tag_;
  bool ready_ = false;
};

TEST(NetworkNamespace, AServerOffLoopbackServesOnlyClientsWithTheCredential) {
  ServeOptions refused = test_server_options();
  refused.bind = "10.231.0.1";
  EXPECT_THROW(Server{refused}, ConfigError);  // no credential: not even bound

  const VethPair veth;
  if (!veth.ready())
    GTEST_SKIP() << "making a network namespace and a veth pair needs CAP_NET_ADMIN (root)";
  ServeOptions options = test_server_options();
  options.bind = "10.231.0.1";
  options.credential = "s3cret-token";
  Server server(std::move(options));
  const std::string address = "10.231.0.1:" + std::to_string(server.port());
  veth.run_inside([&] {
    for (const std::string& credential : {std::string(), std::string("guess")}) {
      try {
        RawSession session(address, {credential, ""});
        ADD_FAILURE() << "credential '" << credential << "' was accepted";
      } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("credential is missing or wrong"), std::string::npos);
      }
    }
    RawSession session(address, {"s3cret-token", ""});
    session.open(0);
    session.upload(1, TensorData(std::vector<int32_t>{3, 4}, Shape{2}));
    session.run(ir::Binary{ir::BinaryOp::Mul}, {1, 1}, {2});
    EXPECT_EQ(session.download(2), TensorData(std::vector<int32_t>{9, 16}, Shape{2}));
  });
  wait_until_sessions_closed(server);
  EXPECT_EQ(server.session_bytes(), 0u);
}

}  // namespace
}  // namespace ember::test
