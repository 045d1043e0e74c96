#include "fusion/program_builder.h"

#include <cstring>
#include <type_traits>
#include <variant>

namespace ember::fusion {
namespace {

/// Appends the bytes of plain values to a key.
class KeyWriter {
 public:
  explicit KeyWriter(std::string& key) : key_(key) {}

  template <typename T>
  requires std::is_trivially_copyable_v<T>
  void put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    key_.append(bytes, sizeof(T));
  }
  void put_size(std::size_t n) { put(static_cast<uint32_t>(n)); }

 private:
  std::string& key_;
};

/// The op's kind and every parameter a program depends on (not its scalar: a constant).
void put_op(KeyWriter& key, const ir::Op& op) {
  key.put_size(op.index());
  std::visit(
      [&](const auto& o) {
        using Op = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<Op, ir::Unary> || std::is_same_v<Op, ir::Binary> ||
                      std::is_same_v<Op, ir::Compare> || std::is_same_v<Op, ir::CompareScalar>) {
          key.put(o.op);
        } else if constexpr (std::is_same_v<Op, ir::BinaryScalar>) {
          key.put(o.op);
          key.put(o.scalar_lhs);
        } else if constexpr (std::is_same_v<Op, ir::Cast>) {
          key.put(o.dtype);
        } else if constexpr (std::is_same_v<Op, ir::Activation>) {
          key.put(o.op);
          key.put(o.alpha);
          key.put(o.beta);
        }
        // Where and MaskFill have no parameter besides MaskFill's scalar.
      },
      op);
}

}  // namespace

void signature_of(const Group& group, const PendingWork& work, GroupSignature& signature) {
  signature.key.clear();
  signature.constants.clear();
  KeyWriter key(signature.key);
  key.put_size(group.shape.rank());
  key.put_size(group.inputs.size());
  for (const ValueRef input : group.inputs) {
    const ir::TensorMeta& meta = work.meta_of(input);
    key.put(meta.dtype);
    key.put_size(meta.shape.rank());
    for (std::size_t d = 0; d < meta.shape.rank(); ++d)
      key.put(ir::broadcasts_along(meta.shape, group.shape, d));
  }
  key.put_size(group.ops.size());
  for (std::size_t j = 0; j < group.ops.size(); ++j) {
    const QueuedOp& queued = work.ops[group.ops[j]];
    put_op(key, queued.op);
    key.put(queued.output.dtype);
    key.put_size(group.args[j].size());
    for (const ir::ProgramRef arg : group.args[j]) {
      key.put(arg.kind);
      key.put(arg.index);
    }
    if (std::optional<Scalar> value = ir::scalar_of(queued.op))
      signature.constants.push_back(*value);
  }
  key.put_size(group.outputs.size());
  for (const uint32_t output : group.outputs)
    key.put(output);
}

ir::Program build_program(const Group& group, const PendingWork& work) {
  ir::Program program;
  for (const ValueRef input : group.inputs) {
    const ir::TensorMeta& meta = work.meta_of(input);
    program.inputs.push_back({meta.dtype, ir::broadcast_flags(meta.shape, group.shape)});
  }
  uint32_t constants = 0;
  for (std::size_t j = 0; j < group.ops.size(); ++j) {
    const QueuedOp& queued = work.ops[group.ops[j]];
    std::optional<uint32_t> constant;
    if (ir::scalar_of(queued.op)) constant = constants++;
    const ArgList<ir::ProgramRef>& args = group.args[j];
    program.instructions.push_back(
        {queued.op, {args.begin(), args.end()}, queued.output.dtype, constant});
  }
  program.outputs = group.outputs;
  program.slots = ir::plan_slots(program);
  return program;
}

}  // namespace ember::fusion
