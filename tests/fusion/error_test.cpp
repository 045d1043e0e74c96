// Errors inside queued ops surface as ExecutionError — naming the op, keeping the original
// message — from whichever call executed the queue (a read, a non-fusible consumer, flush,
// sync, the op that filled the queue); the queue is then empty and usable, and every buffer of
// the failed work that had not run throws ExecutionError when read or used, instead of crashing
// (what ran before the failure keeps its value).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

/// Expects call to throw ExecutionError whose message holds every one of parts.
void expect_execution_error(const std::function<void()>& call,
                            const std::vector<std::string>& parts) {
  try {
    call();
    ADD_FAILURE() << "no ExecutionError";
  } catch (const ExecutionError& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

/// exp, tanh (which the spy fails), mul_scalar: every value held.
struct FailingChain {
  explicit FailingChain(SpiedFusion& spied) {
    spied.spy->fail_on = "tanh";
    backend::Backend& fusion = *spied.fusion;
    x = put(fusion, varied_data({4, 5}));
    e = apply(fusion, ir::Unary{ir::UnaryOp::Exp}, {x});
    t = apply(fusion, ir::Unary{ir::UnaryOp::Tanh}, {e});
    m = apply(fusion, ir::BinaryScalar{ir::BinaryOp::Mul, 2.0}, {t});
  }
  Value x, e, t, m;
};

TEST(FusionErrors, AFailingFusedProgramSurfacesFromTheReadNamingItsOps) {
  SpiedFusion spied;
  FailingChain chain(spied);
  expect_execution_error([&] { get(*spied.fusion, chain.m); },
                         {"[fusion]", "exp, tanh, mul_scalar", "spy failure in tanh"});
  // Every buffer of the failed work throws when read again, or when used.
  for (const Value& failed : {chain.e, chain.t, chain.m})
    expect_execution_error([&] { get(*spied.fusion, failed); }, {"spy failure in tanh"});
  expect_execution_error([&] { apply(*spied.fusion, ir::Unary{ir::UnaryOp::Neg}, {chain.m}); },
                         {"tanh"});
  expect_execution_error(
      [&] {
        apply(*spied.fusion, ir::Reduce{ir::ReduceOp::Sum, 0}, {chain.m});
      },
      {"tanh"});
  // The queue is empty and works again.
  spied.spy->fail_on.reset();
  const Value negated = apply(*spied.fusion, ir::Unary{ir::UnaryOp::Neg}, {chain.x});
  std::vector<float> expected = varied_data({4, 5}).to_vector<float>();
  for (float& v : expected)
    v = -v;
  EXPECT_EQ(get(*spied.fusion, negated).to_vector<float>(), expected);
}

TEST(FusionErrors, AFailingOpRunOpByOpIsNamedAlone) {
  SpiedFusion spied(FusionOptions{}, /*fused=*/false);
  FailingChain chain(spied);
  expect_execution_error([&] { get(*spied.fusion, chain.m); },
                         {"[fusion] queued tanh failed: spy failure in tanh"});
  expect_execution_error([&] { get(*spied.fusion, chain.e); }, {"tanh"});
}

TEST(FusionErrors, FlushSyncAndNonFusibleConsumersSurfaceTheError) {
  const std::vector<std::function<void(SpiedFusion&, const FailingChain&)>> triggers = {
      [](SpiedFusion& s, const FailingChain&) { s.fusion->flush(); },
      [](SpiedFusion& s, const FailingChain&) { s.fusion->sync(); },
      [](SpiedFusion& s, const FailingChain& c) {
        apply(*s.fusion, ir::Reduce{ir::ReduceOp::Sum, 1}, {c.t});
      }};
  for (const auto& trigger : triggers) {
    SpiedFusion spied;
    const FailingChain chain(spied);
    expect_execution_error([&] { trigger(spied, chain); }, {"spy failure in tanh"});
    expect_execution_error([&] { get(*spied.fusion, chain.m); }, {"spy failure in tanh"});
    spied.fusion->flush();  // nothing left queued: no error
  }
}

TEST(FusionErrors, WorkThatRanBeforeTheFailureKeepsItsValues) {
  // Two groups in one queue (two shapes): the first runs, the second fails. Only the second's
  // values are lost; the first's are read as computed.
  SpiedFusion spied;
  spied.spy->fail_on = "tanh";
  const TensorData data = varied_data({4, 5});
  const Value negated =
      apply(*spied.fusion, ir::Unary{ir::UnaryOp::Neg}, {put(*spied.fusion, data)});
  const Value failing =
      apply(*spied.fusion, ir::Unary{ir::UnaryOp::Tanh}, {put(*spied.fusion, varied_data({3}))});
  expect_execution_error([&] { get(*spied.fusion, failing); }, {"spy failure in tanh"});
  std::vector<float> expected = data.to_vector<float>();
  for (float& v : expected)
    v = -v;
  EXPECT_EQ(get(*spied.fusion, negated).to_vector<float>(), expected);
}

TEST(FusionErrors, TheOpThatFillsTheQueueSurfacesTheError) {
  FusionOptions options;
  options.max_queued = 3;
  SpiedFusion spied(options);
  spied.spy->fail_on = "tanh";
  const Value x = put(*spied.fusion, varied_data({7}));
  const Value e = apply(*spied.fusion, ir::Unary{ir::UnaryOp::Exp}, {x});
  const Value t = apply(*spied.fusion, ir::Unary{ir::UnaryOp::Tanh}, {e});
  expect_execution_error([&] { apply(*spied.fusion, ir::Unary{ir::UnaryOp::Neg}, {t}); },
                         {"spy failure in tanh"});
}

TEST(FusionErrors, BuffersQueuedWhenTheBackendIsDestroyedFailCleanly) {
  auto fusion =
      std::make_unique<FusionBackend>(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  const Value y = apply(*fusion, ir::Unary{ir::UnaryOp::Tanh}, {put(*fusion, varied_data({3}))});
  fusion.reset();
  auto* lazy = dynamic_cast<LazyBuffer*>(y.buffer.get());
  ASSERT_NE(lazy, nullptr);
  expect_execution_error([&] { lazy->resolve(); }, {"destroyed"});
}

}  // namespace
}  // namespace ember::fusion::test
