// The remote protocol over TLS: a server with a certificate made here (openssl req, self-signed,
// naming 127.0.0.1), clients that trust it, that do not, and that do not speak TLS at all.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ember/ember.h"
#include "remote/remote_test_util.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

namespace ember::test {
namespace {

/// A self-signed certificate for 127.0.0.1 and its key, as cert.pem and key.pem in dir.
void make_certificate(const TempDir& dir, const std::string& name) {
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + name +
      " -addext subjectAltName=IP:127.0.0.1 -keyout " + (dir / "key.pem").string() + " -out " +
      (dir / "cert.pem").string() + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    make_certificate(server_files, "ember-test-server");
    make_certificate(stranger_files, "ember-test-stranger");
  }
  ServeOptions tls_options() const {
    ServeOptions options = test_server_options();
    options.tls_certificate_file = (server_files / "cert.pem").string();
    options.tls_key_file = (server_files / "key.pem").string();
    return options;
  }
  TempDir server_files{"ember-tls"};
  TempDir stranger_files{"ember-tls"};
};

TEST_F(Tls, AClientTrustingTheCertificateRunsOps) {
  Server server(tls_options());
  const RemoteHost host =
      RemoteHost::tcp(loopback(server)).with_tls((server_files / "cert.pem").string());
  EXPECT_EQ(host.devices().size(), 1u);
  const Device remote = Device::remote(host);
  const TensorHandle x =
      ops::from_data(TensorData(std::vector<double>{1.5, -2}, Shape{2}), remote, TensorKind::Float);
  EXPECT_EQ(ops::into_data(ops::mul(x, x)), TensorData(std::vector<double>{2.25, 4}, Shape{2}));
}

TEST_F(Tls, RefusesAServerWhoseCertificateItDoesNotTrust) {
  Server server(tls_options());
  try {
    RawSession session(loopback(server), {"", (stranger_files / "cert.pem").string()});
    ADD_FAILURE() << "a certificate it does not trust was accepted";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("certificate does not verify"), std::string::npos)
        << e.what();
  }
}

TEST_F(Tls, APlainClientAndATlsServerRefuseEachOtherWithoutHanging) {
  const ScopedEnv timeout("EMBER_REMOTE_TIMEOUT_MS", "5000");
  {  // a client without TLS: the server's handshake fails on its hello, and closes
    Server server(tls_options());
    EXPECT_THROW(RawSession session(loopback(server)), ExecutionError);
  }
  {  // a TLS client and a plain server: the handshake fails on the server's reply
    Server server(test_server_options());
    EXPECT_THROW(RawSession session(loopback(server), {"", (server_files / "cert.pem").string()}),
                 ExecutionError);
  }
}

TEST_F(Tls, RefusesACertificateWithoutItsKey) {
  ServeOptions options = tls_options();
  options.tls_key_file.clear();
  EXPECT_THROW(Server{options}, ConfigError);
  options.tls_key_file = (stranger_files / "key.pem").string();  // another certificate's key
  EXPECT_THROW(Server{options}, ConfigError);
}

}  // namespace
}  // namespace ember::test
