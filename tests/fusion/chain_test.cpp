// Random chains of fusible ops (unary, binary with broadcasting, scalar, compare, where, mask,
// cast, activation) over several shapes, with strided (permuted), broadcast (expanded) and
// one-element inputs, some intermediates dropped on the way. FusionBackend over a backend must
// give exactly that backend's eager values (fusion changes where values are computed, never
// how), and FusionBackend over flex must match the ndarray reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fusion_test_util.h"

namespace ember::fusion::test {
namespace {

struct Step {
  ir::Op op;
  std::vector<std::size_t> args;     ///< values read
  std::vector<std::size_t> release;  ///< values dropped after the step
};

/// A chain: values are the inputs, then one per step; kept values are read at the end.
struct Chain {
  std::vector<TensorData> inputs;
  std::vector<Step> steps;
  std::vector<std::size_t> kept;
};

/// Draws random chains over one output shape. Every value is F32 or Bool; comparisons and casts
/// to Bool read only exact values (inputs and their views), so that a last-bit difference of
/// vector math between backends cannot flip a Bool.
class ChainBuilder {
 public:
  ChainBuilder(const Shape& shape, uint32_t seed) : shape_(shape), random_(seed) {}

  Chain build(int steps) {
    add_inputs();
    while (chain_.steps.size() < static_cast<std::size_t>(steps))
      try_step();
    chain_.kept = available_;
    return chain_;
  }

 private:
  struct ValueInfo {
    ir::TensorMeta meta;
    bool exact;
  };

  void add_input(const Shape& shape, int seed) {
    chain_.inputs.push_back(varied_data(shape, seed));
    values_.push_back({{shape, DType::F32}, true});
    available_.push_back(values_.size() - 1);
  }

  /// x (the shape), y (size 1 on every other dim), a one-element s, and z (the shape reversed)
  /// then views of z permuted back (strided) and of y expanded (stride 0 on flex).
  void add_inputs() {
    std::vector<int64_t> broadcast = shape_.dims();
    std::vector<int64_t> reversed(shape_.dims().rbegin(), shape_.dims().rend());
    std::vector<int64_t> axes;
    for (std::size_t d = 0; d < broadcast.size(); ++d) {
      if (d % 2 == 0) broadcast[d] = 1;
      axes.push_back(static_cast<int64_t>(broadcast.size() - 1 - d));
    }
    add_input(shape_, 1);
    add_input(Shape(broadcast), 2);
    add_input({1}, 3);
    add_input(Shape(reversed), 4);
    push(ir::Permute{axes}, {3}, true);
    push(ir::Expand{shape_}, {1}, true);
  }

  void push(const ir::Op& op, std::vector<std::size_t> args, bool exact) {
    std::vector<ir::TensorMeta> metas;
    for (const std::size_t arg : args)
      metas.push_back(values_[arg].meta);
    const ir::TensorMeta output = ir::infer(op, metas).at(0);
    chain_.steps.push_back({op, std::move(args), {}});
    values_.push_back({output, exact || output.dtype == DType::Bool});
    available_.push_back(values_.size() - 1);
    maybe_release();
  }

  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_);
  }

  /// A random available value of dtype (exact ones only when asked); nullopt when none.
  std::optional<std::size_t> pick(DType dtype, bool exact_only = false) {
    std::vector<std::size_t> candidates;
    for (const std::size_t v : available_) {
      if (values_[v].meta.dtype == dtype && (!exact_only || values_[v].exact))
        candidates.push_back(v);
    }
    if (candidates.empty()) return std::nullopt;
    return candidates[below(candidates.size())];
  }

  /// One random op: skipped when its inputs are missing or do not fit its rule.
  void try_step() {
    const std::optional<std::size_t> a = pick(DType::F32);
    const std::optional<std::size_t> b = pick(DType::F32);
    const std::optional<std::size_t> e = pick(DType::F32, true);
    const std::optional<std::size_t> f = pick(DType::F32, true);
    const std::optional<std::size_t> c = pick(DType::Bool);
    const std::optional<std::size_t> d = pick(DType::Bool);
    const std::vector<ir::UnaryOp> unary = {ir::UnaryOp::Neg, ir::UnaryOp::Abs, ir::UnaryOp::Tanh,
                                            ir::UnaryOp::Sin, ir::UnaryOp::Cos, ir::UnaryOp::Erf};
    const std::vector<ir::Activation> activations = {
        {ir::ActivationOp::Sigmoid},    {ir::ActivationOp::Gelu},
        {ir::ActivationOp::GeluTanh},   {ir::ActivationOp::Silu},
        {ir::ActivationOp::Relu},       {ir::ActivationOp::LeakyRelu, 0.1},
        {ir::ActivationOp::Softplus},   {ir::ActivationOp::HardSwish},
        {ir::ActivationOp::Elu, 1.0},   {ir::ActivationOp::Selu},
        {ir::ActivationOp::Celu, 0.7},  {ir::ActivationOp::Softplus, 0.0, 2.0},
        {ir::ActivationOp::LogSigmoid}, {ir::ActivationOp::Mish}};
    const std::vector<ir::BinaryScalar> scalars = {
        {ir::BinaryOp::Mul, 0.5}, {ir::BinaryOp::Add, 1.0}, {ir::BinaryOp::Sub, 2.0, true},
        {ir::BinaryOp::Div, 3.0}, {ir::BinaryOp::Pow, 2.0}, {ir::BinaryOp::Maximum, -0.5}};
    const std::vector<ir::BinaryOp> binary = {ir::BinaryOp::Add, ir::BinaryOp::Sub,
                                              ir::BinaryOp::Mul, ir::BinaryOp::Maximum,
                                              ir::BinaryOp::Minimum};
    const std::vector<ir::BinaryOp> logical = {ir::BinaryOp::And, ir::BinaryOp::Or,
                                               ir::BinaryOp::Xor};
    try {
      switch (below(10)) {
        case 0:
          return push(ir::Unary{unary[below(unary.size())]}, {*a}, false);
        case 1:
          return push(activations[below(activations.size())], {*a}, false);
        case 2:
          return push(scalars[below(scalars.size())], {*a}, false);
        case 3:
        case 4:
          return push(ir::Binary{binary[below(binary.size())]}, {*a, *b}, false);
        case 5:
          if (below(2) == 0) return push(ir::Compare{ir::CompareOp::Greater}, {*e, *f}, true);
          return push(ir::CompareScalar{ir::CompareOp::LowerEqual, 0.5}, {*e}, true);
        case 6:
          if (below(2) == 0) return push(ir::Unary{ir::UnaryOp::Not}, {c.value()}, true);
          return push(ir::Binary{logical[below(logical.size())]}, {c.value(), d.value()}, true);
        case 7:
          return push(ir::Where{}, {c.value(), *a, *b}, false);
        case 8:
          return push(ir::MaskFill{0.25}, {*a, c.value()}, false);
        default:
          if (below(2) == 0) return push(ir::Cast{DType::Bool}, {*e}, true);
          return push(ir::Cast{DType::F32}, {c.value()}, true);
      }
    } catch (const std::bad_optional_access&) {
      return;  // no Bool value yet
    } catch (const InvalidArgument&) {
      return;  // the mask does not broadcast to x
    }
  }

  /// After a step, one time in four, drops a random earlier value (never the newest).
  void maybe_release() {
    if (below(4) != 0 || available_.size() < 2) return;
    const std::size_t at = below(available_.size() - 1);
    chain_.steps.back().release.push_back(available_[at]);
    available_.erase(available_.begin() + static_cast<std::ptrdiff_t>(at));
  }

  Shape shape_;
  std::mt19937 random_;
  Chain chain_;
  std::vector<ValueInfo> values_;
  std::vector<std::size_t> available_;
};

/// The kept values of chain computed on backend.
std::vector<TensorData> run_chain(backend::Backend& backend, const Chain& chain) {
  std::vector<Value> values;
  for (const TensorData& input : chain.inputs)
    values.push_back(put(backend, input));
  for (const Step& step : chain.steps) {
    std::vector<Value> args;
    for (const std::size_t arg : step.args)
      args.push_back(values[arg]);
    values.push_back(apply(backend, step.op, args));
    for (const std::size_t released : step.release)
      values[released] = {};
  }
  std::vector<TensorData> kept;
  for (const std::size_t k : chain.kept)
    kept.push_back(get(backend, values[k]));
  return kept;
}

/// Expects fused to hold exactly eager's values.
void expect_same_values(const std::vector<TensorData>& fused, const std::vector<TensorData>& eager,
                        const std::string& what) {
  ASSERT_EQ(fused.size(), eager.size()) << what;
  for (std::size_t k = 0; k < eager.size(); ++k)
    EXPECT_EQ(fused[k], eager[k]) << what << ", kept value " << k << ": " << fused[k] << " vs "
                                  << eager[k];
}

const std::vector<Shape> kShapes = {{8, 64, 65}, {4, 33, 17}, {3, 1, 5}, {5}, {1}, {0, 5}};
constexpr int kSteps = 24;
constexpr uint32_t kSeeds = 3;

std::string describe(const Shape& shape, uint32_t seed) {
  std::ostringstream text;
  text << "shape " << shape << " seed " << seed;
  return text.str();
}

TEST(FusionChains, FusedFlexGivesEagerFlexValuesBitForBit) {
  for (const Shape& shape : kShapes) {
    for (uint32_t seed = 0; seed < kSeeds; ++seed) {
      const Chain chain = ChainBuilder(shape, seed).build(kSteps);
      flex::FlexBackend eager;
      FusionBackend fused(std::make_unique<flex::FlexBackend>(), FusionOptions{});
      expect_same_values(run_chain(fused, chain), run_chain(eager, chain), describe(shape, seed));
      EXPECT_GT(fused.cache_stats().misses, 0u) << "nothing was fused";
    }
  }
}

TEST(FusionChains, FusedNdArrayGivesEagerNdArrayValuesBitForBit) {
  for (const Shape& shape : kShapes) {
    for (uint32_t seed = 0; seed < kSeeds; ++seed) {
      const Chain chain = ChainBuilder(shape, seed).build(kSteps);
      ndarray::NdArrayBackend eager;
      // ndarray runs no programs: a spy declares that it fuses f32 and bool ops of any rank, so
      // the decorator queues them and runs each program op by op.
      backend::FusionSupport queued{.dtypes = {DType::F32, DType::Bool},
                                    .max_rank = std::numeric_limits<std::size_t>::max()};
      FusionBackend fused(
          std::make_unique<SpyBackend>(std::make_unique<ndarray::NdArrayBackend>(), queued),
          FusionOptions{});
      expect_same_values(run_chain(fused, chain), run_chain(eager, chain), describe(shape, seed));
    }
  }
}

TEST(FusionChains, OneBufferUnderTwoShapesIsTwoProgramInputs) {
  // A backend's reshape may give back its input's buffer (cuda's does): [3] and its reshape
  // [3, 1] then reach the queue as one buffer under two metas, which broadcast differently, so
  // they are two inputs of the program, each with its own meta.
  SpiedFusion spied;
  backend::Backend& b = *spied.fusion;
  const Value x = put(b, varied_data(Shape{3, 3}));
  const Value c = put(b, varied_data(Shape{3}, 1));
  const Value column{c.buffer, {Shape{3, 1}, DType::F32}};
  const Value along_rows = apply(b, ir::Binary{ir::BinaryOp::Add}, {x, c});
  const Value along_columns = apply(b, ir::Binary{ir::BinaryOp::Add}, {x, column});
  get(b, apply(b, ir::Binary{ir::BinaryOp::Sub}, {along_rows, along_columns}));
  const std::vector<ir::TensorMeta> inputs = spied.spy->last_program_inputs();
  ASSERT_EQ(spied.spy->programs, 1);
  EXPECT_EQ(inputs.size(), 3u);
  EXPECT_NE(std::ranges::find(inputs, c.meta), inputs.end());
  EXPECT_NE(std::ranges::find(inputs, column.meta), inputs.end());
}

TEST(FusionChains, AQueueCutByItsBoundGivesTheSameValues) {
  FusionOptions small;
  small.max_queued = 3;
  for (const Shape& shape : kShapes) {
    const Chain chain = ChainBuilder(shape, 7).build(kSteps);
    flex::FlexBackend eager;
    FusionBackend fused(std::make_unique<flex::FlexBackend>(), small);
    expect_same_values(run_chain(fused, chain), run_chain(eager, chain), describe(shape, 7));
  }
}

TEST(FusionChains, ExpBeyondItsVectorRangeGivesEagerValuesBitForBit) {
  // A sigmoid and a scaled exp from primitives over [-200, 200], infinities and NaN: flex
  // compiles the program, its code leaves the tiles whose exp arguments pass 88 (or are NaN or
  // -inf) to the tile loops, which give eager flex's values.
  std::vector<float> values;
  for (int i = 0; i < 4 * 1000; ++i)
    values.push_back(static_cast<float>(i % 401 - 200));
  values[5] = std::numeric_limits<float>::infinity();
  values[2100] = -std::numeric_limits<float>::infinity();
  values[3999] = std::numeric_limits<float>::quiet_NaN();
  const TensorData data(values, Shape{4, 1000});
  const auto run = [&](backend::Backend& backend) {
    const Value x = put(backend, data);
    const Value e = apply(backend, ir::Unary{ir::UnaryOp::Exp},
                          {apply(backend, ir::Unary{ir::UnaryOp::Neg}, {x})});
    const Value sigmoid =
        apply(backend, ir::Unary{ir::UnaryOp::Recip},
              {apply(backend, ir::BinaryScalar{ir::BinaryOp::Add, Scalar(1.0)}, {e})});
    const Value scaled = apply(backend, ir::BinaryScalar{ir::BinaryOp::Mul, Scalar(0.5)},
                               {apply(backend, ir::Unary{ir::UnaryOp::Exp}, {x})});
    return std::vector<TensorData>{get(backend, sigmoid), get(backend, scaled)};
  };
  expect_fused_flex_gives_eager_bits(run);
}

TEST(FusionChains, LogOutsideItsVectorRangeGivesEagerValuesBitForBit) {
  // A softplus from primitives (log(1 + exp(x))) and a log of x itself over [-50, 50] in
  // quarters, zeros, subnormals, infinities and NaN: flex compiles the program, its code leaves
  // the tiles where log meets anything but a normal positive value to the tile loops.
  std::vector<float> values;
  for (int i = 0; i < 4 * 1000; ++i)
    values.push_back(static_cast<float>(i % 401 - 200) / 4.0f);
  values[7] = std::numeric_limits<float>::denorm_min();
  values[1500] = std::numeric_limits<float>::infinity();
  values[2100] = -std::numeric_limits<float>::infinity();
  values[3999] = std::numeric_limits<float>::quiet_NaN();
  const TensorData data(values, Shape{4, 1000});
  const auto run = [&](backend::Backend& backend) {
    const Value x = put(backend, data);
    const Value one_plus_exp = apply(backend, ir::BinaryScalar{ir::BinaryOp::Add, Scalar(1.0)},
                                     {apply(backend, ir::Unary{ir::UnaryOp::Exp}, {x})});
    const Value softplus = apply(backend, ir::Unary{ir::UnaryOp::Log}, {one_plus_exp});
    const Value log_x = apply(backend, ir::Unary{ir::UnaryOp::Log}, {x});
    return std::vector<TensorData>{get(backend, softplus), get(backend, log_x)};
  };
  expect_fused_flex_gives_eager_bits(run);
}

TEST(FusionChains, FusedFlexMatchesTheNdArrayReference) {
  // Note: a chain compounds the few-ULP differences of flex's vector math (tanh, erf, ...)
  // through later products and differences, so the bound is looser than one op's; the exact
  // comparison with eager flex above is what pins fusion itself.
  const Tolerance tolerance{1e-4, 1e-4};
  for (const Shape& shape : kShapes) {
    for (uint32_t seed = 0; seed < kSeeds; ++seed) {
      const Chain chain = ChainBuilder(shape, seed).build(kSteps);
      ndarray::NdArrayBackend reference;
      FusionBackend fused(std::make_unique<flex::FlexBackend>(), FusionOptions{});
      const std::vector<TensorData> expected = run_chain(reference, chain);
      const std::vector<TensorData> actual = run_chain(fused, chain);
      ASSERT_EQ(actual.size(), expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        std::string why;
        EXPECT_TRUE(actual[k].approx_equal(expected[k], tolerance, &why))
            << describe(shape, seed) << ", kept value " << k << ": " << why;
      }
    }
  }
}

TEST(FusionChains, ChainsHoldEveryKindOfOpAndKeepSeveralValues) {
  // Guards the generator: the chains above must exercise what they claim to.
  std::vector<std::size_t> kinds;
  std::size_t kept = 0;
  for (uint32_t seed = 0; seed < kSeeds; ++seed) {
    const Chain chain = ChainBuilder({4, 33, 17}, seed).build(kSteps);
    kept += chain.kept.size();
    for (const Step& step : chain.steps)
      kinds.push_back(step.op.index());
  }
  const auto count = [&](const ir::Op& op) { return std::ranges::count(kinds, op.index()); };
  for (const ir::Op& op :
       {ir::Op{ir::Unary{}}, ir::Op{ir::Binary{}}, ir::Op{ir::BinaryScalar{}}, ir::Op{ir::Where{}},
        ir::Op{ir::MaskFill{}}, ir::Op{ir::Cast{}}, ir::Op{ir::Activation{}}}) {
    EXPECT_NE(count(op), 0) << ir::name(op);
  }
  EXPECT_NE(count(ir::Compare{}) + count(ir::CompareScalar{}), 0);
  EXPECT_GT(kept, 3 * kSeeds);
}

}  // namespace
}  // namespace ember::fusion::test
