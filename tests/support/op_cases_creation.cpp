// Creation ops (no tensor inputs: they create in the case's dtype on the case's device) and the
// data-movement ops (from_data/into_data, to_device, with_autodiff).
#include "support/op_cases.h"

namespace ember::test {
namespace {

/// Every random case seeds its device first, so each device draws the same stream.
constexpr uint64_t kRandomSeed = 20240601;

TensorCreationOptions options_of(const OpTarget& target) {
  return TensorCreationOptions(target.device).with_dtype(target.dtype);
}

using ShapedFn = TensorHandle (*)(const Shape&, const TensorCreationOptions&, TensorKind);

/// zeros, ones, empty: fn(args.shape) in the case's dtype.
OpCase shaped_case(std::string name, ShapedFn fn) {
  OpRun run = [fn](const ops::Handles&, const OpArgs& args, const OpTarget& target) {
    return ops::Handles{fn(Shape(args.ints("shape")), options_of(target), kind_of(target.dtype))};
  };
  return make_case(std::move(name), DTypes::All, {}, std::move(run),
                   fixed_args({{"shape", std::vector<int64_t>{2, 3}}}));
}

OpCase full_case() {
  OpRun run = [](const ops::Handles&, const OpArgs& args, const OpTarget& target) {
    return ops::Handles{ops::full(Shape(args.ints("shape")), args.scalar("value"),
                                  options_of(target), kind_of(target.dtype))};
  };
  return make_case("full", DTypes::All, {}, std::move(run), [](DType d) {
    return OpArgs{{"shape", std::vector<int64_t>{2, 3}}, {"value", kind_value(d, 2.5, 7)}};
  });
}

OpCase arange_case(std::string name, int64_t start, int64_t end, int64_t step) {
  OpRun run = [](const ops::Handles&, const OpArgs& args, const OpTarget& target) {
    return ops::Handles{ops::arange(args.integer("start"), args.integer("end"),
                                    args.integer("step"), options_of(target))};
  };
  return make_case(std::move(name), DTypes::Int, {}, std::move(run),
                   fixed_args({{"start", start}, {"end", end}, {"step", step}}));
}

OpCase eye_case() {
  OpRun run = [](const ops::Handles&, const OpArgs& args, const OpTarget& target) {
    return ops::Handles{ops::eye(args.integer("n"), options_of(target), kind_of(target.dtype))};
  };
  return make_case("eye", DTypes::All, {}, std::move(run), fixed_args({{"n", int64_t{3}}}));
}

/// Bool tensors take only the Bernoulli distribution.
OpCase random_case(std::string name, DTypes dtypes, Distribution distribution) {
  OpRun run = [distribution](const ops::Handles&, const OpArgs& args, const OpTarget& target) {
    target.device.seed(kRandomSeed);
    return ops::Handles{ops::random(Shape(args.ints("shape")), distribution, options_of(target),
                                    kind_of(target.dtype))};
  };
  OpCase c = make_case(std::move(name), dtypes, {}, std::move(run),
                       fixed_args({{"shape", std::vector<int64_t>{4, 16}}}));
  c.has_golden = false;
  return c;
}

OpCase full_like_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs& args, const OpTarget&) {
    return ops::Handles{ops::full_like(in.at(0), args.scalar("value"))};
  };
  return make_case("full_like", DTypes::All, {drawn(kShape)}, std::move(run), [](DType d) {
    return OpArgs{{"value", kind_value(d, -1.5, 5)}};
  });
}

/// into_data then from_data: the host round trip every other case relies on.
OpCase from_data_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs&, const OpTarget& target) {
    const TensorHandle& x = in.at(0);
    return ops::Handles{ops::from_data(ops::into_data(x), options_of(target), x.kind())};
  };
  return make_case("from_data", DTypes::All, {drawn(kShape)}, std::move(run));
}

/// To the reference device and back.
OpCase to_device_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs&, const OpTarget& target) {
    const TensorHandle there = ops::to_device(in.at(0), Device::ndarray());
    return ops::Handles{ops::to_device(there, target.device)};
  };
  return make_case("to_device", DTypes::All, {drawn(kShape)}, std::move(run));
}

OpCase with_autodiff_case() {
  OpRun run = [](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    return ops::Handles{ops::with_autodiff(in.at(0), true)};
  };
  return make_case("with_autodiff", DTypes::All, {drawn(kShape)}, std::move(run));
}

}  // namespace

std::vector<OpCase> creation_cases() {
  OpCase empty = shaped_case("empty", ops::empty);
  empty.values_defined = false;
  return {full_case(),
          shaped_case("zeros", ops::zeros),
          shaped_case("ones", ops::ones),
          std::move(empty),
          arange_case("arange", 1, 10, 3),
          arange_case("arange/negative_step", 9, 0, -2),
          eye_case(),
          random_case("random", DTypes::Numeric, Distribution::uniform(-2.0, 3.0)),
          random_case("random/normal", DTypes::Numeric, Distribution::normal(1.0, 2.0)),
          random_case("random/bernoulli", DTypes::All, Distribution::bernoulli(0.3)),
          full_like_case(),
          from_data_case(),
          to_device_case(),
          with_autodiff_case()};
}

}  // namespace ember::test
