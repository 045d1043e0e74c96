// Helpers of the fusion tests: backends built directly (FusionBackend over flex or ndarray, a spy
// backend that counts what reaches it and can fail on demand), tensors as buffer + metadata, and
// running ir ops through any backend.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/flex/flex_backend.h"
#include "backends/ndarray/ndarray_backend.h"
#include "ember/tensor_data.h"
#include "fusion/fusion_backend.h"
#include "fusion/lazy_buffer.h"
#include "ir/program.h"

namespace ember::fusion::test {

inline const ir::Unary kTanh{ir::UnaryOp::Tanh};

/// A tensor of a backend: its buffer and metadata.
struct Value {
  backend::BufferPtr buffer;
  ir::TensorMeta meta;
  backend::Operand operand() const { return {buffer, meta}; }
};

inline Value put(backend::Backend& backend, const TensorData& data) {
  return {backend.write(data), {data.shape(), data.dtype()}};
}

/// op's first output on backend (outputs' metadata from ir::infer).
inline Value apply(backend::Backend& backend, const ir::Op& op, const std::vector<Value>& inputs) {
  std::vector<backend::Operand> operands;
  std::vector<ir::TensorMeta> metas;
  for (const Value& input : inputs) {
    operands.push_back(input.operand());
    metas.push_back(input.meta);
  }
  const ir::OutputMetas outputs = ir::infer(op, metas);
  return {backend.execute(op, operands, outputs).at(0), outputs[0]};
}

inline TensorData get(backend::Backend& backend, const Value& value) {
  return backend.read(value.operand());
}

inline bool is_lazy(const Value& value) {
  return dynamic_cast<const LazyBuffer*>(value.buffer.get()) != nullptr;
}

/// Builds values on a backend and reads back the ones to compare.
using Computation = std::function<std::vector<TensorData>(backend::Backend&)>;

/// Expects fusion over flex to give eager flex's values bit for bit for computation, and to have
/// fused something.
inline void expect_fused_flex_gives_eager_bits(const Computation& computation) {
  flex::FlexBackend eager;
  FusionBackend fused(std::make_unique<flex::FlexBackend>(), FusionOptions{});
  const std::vector<TensorData> expected = computation(eager);
  const std::vector<TensorData> actual = computation(fused);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k)
    EXPECT_EQ(actual[k], expected[k]) << "output " << k;
  EXPECT_GT(fused.cache_stats().misses, 0u) << "nothing was fused";
}

/// Host values of shape in [-2, 2), varied by seed: ((i + seed) * 37 mod 101) / 25 - 2.
inline TensorData varied_data(const Shape& shape, int seed = 0) {
  std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>((i + static_cast<std::size_t>(seed)) * 37 % 101) / 25.0f - 2.0f;
  return TensorData(values, shape);
}

/// Forwards to an inner backend and counts the ops, fused programs and output buffers that
/// reach it; throws std::runtime_error("spy failure in <op>") on an op (or a program holding an
/// op) named fail_on. Thread-safe.
class SpyBackend final : public backend::Backend {
 public:
  /// fused: whether to offer execute_fused (when the inner backend has it).
  explicit SpyBackend(std::unique_ptr<backend::Backend> inner, bool fused = true)
      : inner_(std::move(inner)), support_(inner_->fusion_support()) {
    support_.runs_programs = support_.runs_programs && fused;
  }
  /// Declares support instead of the inner backend's (a backend without execute_fused then
  /// has its queued programs run op by op).
  SpyBackend(std::unique_ptr<backend::Backend> inner, backend::FusionSupport support)
      : inner_(std::move(inner)), support_(std::move(support)) {}

  std::atomic<int> ops{0};
  std::atomic<int> programs{0};
  /// Calls that ran work: programs and single ops (a queue of one small op runs as an op).
  int runs() const { return ops + programs; }
  std::atomic<int> outputs_written{0};
  /// Set before the backend is used by several threads.
  std::optional<std::string> fail_on;

  std::string name() const override { return "spy"; }
  std::string description() const override { return "spy over " + inner_->name(); }
  bool supports_dtype(DType dtype) const override { return inner_->supports_dtype(dtype); }
  backend::Outputs execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                           std::span<const ir::TensorMeta> outputs) override {
    if (fail_on == ir::name(op)) throw std::runtime_error("spy failure in " + *fail_on);
    auto buffers = inner_->execute(op, inputs, outputs);
    ++ops;
    outputs_written += static_cast<int>(buffers.size());
    return buffers;
  }
  backend::FusionSupport fusion_support() const override { return support_; }
  backend::Outputs execute_fused(const ir::Program& program,
                                 std::span<const backend::Operand> inputs,
                                 std::span<const Scalar> constants, const Shape& shape) override {
    for (const ir::Instruction& instruction : program.instructions) {
      if (fail_on == ir::name(instruction.op)) {
        throw std::runtime_error("spy failure in " + *fail_on);
      }
    }
    {
      const std::lock_guard lock(mutex_);
      last_program_inputs_.clear();
      for (const backend::Operand& input : inputs)
        last_program_inputs_.push_back(input.meta);
    }
    auto buffers = inner_->execute_fused(program, inputs, constants, shape);
    ++programs;
    outputs_written += static_cast<int>(buffers.size());
    return buffers;
  }
  backend::BufferPtr write(const TensorData& data) override { return inner_->write(data); }
  TensorData read(const backend::Operand& operand) override { return inner_->read(operand); }
  /// The metas of the inputs of the last program that reached execute_fused.
  std::vector<ir::TensorMeta> last_program_inputs() const {
    const std::lock_guard lock(mutex_);
    return last_program_inputs_;
  }

 private:
  std::unique_ptr<backend::Backend> inner_;
  backend::FusionSupport support_;
  mutable std::mutex mutex_;
  std::vector<ir::TensorMeta> last_program_inputs_;
};

/// A FusionBackend over a spy over flex, keeping a pointer to the spy.
struct SpiedFusion {
  explicit SpiedFusion(FusionOptions options = {}, bool fused = true) {
    auto inner = std::make_unique<SpyBackend>(std::make_unique<flex::FlexBackend>(), fused);
    spy = inner.get();
    fusion = std::make_unique<FusionBackend>(std::move(inner), options);
  }
  SpyBackend* spy;
  std::unique_ptr<FusionBackend> fusion;
};

/// GELU (tanh form) from primitive ops: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))),
/// 9 ops. intermediates (if given) receives the 8 values before the result.
inline Value gelu_from_primitives(backend::Backend& backend, const Value& x,
                                  std::vector<Value>* intermediates = nullptr) {
  std::vector<Value> held;
  const auto step = [&](const ir::Op& op, const std::vector<Value>& inputs) {
    held.push_back(apply(backend, op, inputs));
    return held.back();
  };
  const Value square = step(ir::Binary{ir::BinaryOp::Mul}, {x, x});
  const Value cube = step(ir::Binary{ir::BinaryOp::Mul}, {square, x});
  const Value scaled_cube = step(ir::BinaryScalar{ir::BinaryOp::Mul, 0.044715}, {cube});
  const Value inner = step(ir::Binary{ir::BinaryOp::Add}, {x, scaled_cube});
  const Value argument = step(ir::BinaryScalar{ir::BinaryOp::Mul, 0.7978845608028654}, {inner});
  const Value t = step(ir::Unary{ir::UnaryOp::Tanh}, {argument});
  const Value one_plus = step(ir::BinaryScalar{ir::BinaryOp::Add, 1.0}, {t});
  const Value half_x = step(ir::BinaryScalar{ir::BinaryOp::Mul, 0.5}, {x});
  const Value result = apply(backend, ir::Binary{ir::BinaryOp::Mul}, {half_x, one_plus});
  if (intermediates != nullptr) *intermediates = std::move(held);
  return result;
}

}  // namespace ember::fusion::test
