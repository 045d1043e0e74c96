// Each member of an op struct is written by its C++ type: integers, enums and bools as an int,
// doubles as a real, Shape and integer lists as ints, nested aggregates (and lists of them) as
// groups of their own members.
#include "wire/op_codec.h"

#include <concepts>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ember/error.h"
#include "ir/op_fields.h"
#include "ir/rules.h"
#include "wire/meta_codec.h"

namespace ember::wire {
namespace {

using Field = proto::Field;

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;
template <typename T>
inline constexpr bool kIsVector = false;
template <typename T>
inline constexpr bool kIsVector<std::vector<T>> = true;

/// Where a decoded value sits, for messages: "op 'sum_dim' member 2".
struct Place {
  std::string op;
  int member = 0;
};

[[noreturn]] void fail(const Place& at, const auto&... parts) {
  throw InvalidArgument(
      ir::rules::concat("[remote] op '", at.op, "' member ", at.member, ": ", parts...));
}

void encode_ints(std::span<const int64_t> values, Field::Builder out) {
  auto list = out.initInts(static_cast<unsigned>(values.size()));
  for (unsigned i = 0; i < values.size(); ++i)
    list.set(i, values[i]);
}

template <typename T>
void encode_value(const T& value, Field::Builder out);

template <ir::FieldAggregate T>
void encode_group(const T& value, Field::Builder out) {
  auto group = out.initGroup(static_cast<unsigned>(ir::member_count<T>()));
  unsigned index = 0;
  ir::for_each_field(value, [&](const auto& member) { encode_value(member, group[index++]); });
}

template <typename T>
void encode_value(const T& value, Field::Builder out) {
  if constexpr (std::is_enum_v<T>) {
    out.setInt(static_cast<int64_t>(value));
  } else if constexpr (std::integral<T>) {
    out.setInt(static_cast<int64_t>(value));  // a uint64 travels as its bit pattern
  } else if constexpr (std::floating_point<T>) {
    out.setReal(value);
  } else if constexpr (std::same_as<T, Scalar>) {
    auto scalar = out.initScalar();
    scalar.setKind(static_cast<uint8_t>(value.kind));
    scalar.setReal(value.f);
    scalar.setInt(value.i);
  } else if constexpr (std::same_as<T, Shape>) {
    encode_ints(value.dims(), out);
  } else if constexpr (std::same_as<T, std::vector<int64_t>>) {
    encode_ints(value, out);
  } else if constexpr (std::same_as<T, std::vector<double>>) {
    auto list = out.initReals(static_cast<unsigned>(value.size()));
    for (unsigned i = 0; i < value.size(); ++i)
      list.set(i, value[i]);
  } else if constexpr (kIsOptional<T>) {
    if (value) {
      encode_value(*value, out);
    } else {
      out.setAbsent();
    }
  } else if constexpr (kIsVector<T>) {
    auto list = out.initGroup(static_cast<unsigned>(value.size()));
    for (unsigned i = 0; i < value.size(); ++i)
      encode_group(value[i], list[i]);
  } else {
    encode_group(value, out);
  }
}

const char* kind_name(Field::Which which) {
  switch (which) {
    case Field::ABSENT:
      return "absent";
    case Field::INT:
      return "an int";
    case Field::REAL:
      return "a real";
    case Field::SCALAR:
      return "a scalar";
    case Field::INTS:
      return "a list of ints";
    case Field::REALS:
      return "a list of reals";
    case Field::GROUP:
      return "a group";
  }
  return "of an unknown kind";
}

void require_kind(Field::Reader in, Field::Which expected, const Place& at) {
  if (in.which() != expected)
    fail(at, "is ", kind_name(in.which()), ", expected ", kind_name(expected));
}

/// An integer of type T (an enum's underlying type) from an int field, refused out of T's range.
template <typename T>
T decode_integer(Field::Reader in, const Place& at) {
  require_kind(in, Field::INT, at);
  const int64_t raw = in.getInt();
  if constexpr (std::same_as<T, uint64_t>) {
    return static_cast<uint64_t>(raw);
  } else {
    if (raw < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        raw > static_cast<int64_t>(std::numeric_limits<T>::max()))
      fail(at, "value ", raw, " is out of range");
    return static_cast<T>(raw);
  }
}

std::vector<int64_t> decode_int_field(Field::Reader in, const Place& at) {
  require_kind(in, Field::INTS, at);
  return to_vector<int64_t>(in.getInts());
}

template <typename T>
void decode_value(Field::Reader in, T& value, const Place& at);

template <ir::FieldAggregate T>
void decode_group(Field::Reader in, T& value, const Place& at) {
  require_kind(in, Field::GROUP, at);
  const auto group = in.getGroup();
  if (group.size() != ir::member_count<T>())
    fail(at, "a group of ", group.size(), " members, expected ", ir::member_count<T>());
  unsigned index = 0;
  ir::for_each_field(value, [&](auto& member) { decode_value(group[index++], member, at); });
}

template <typename T>
void decode_value(Field::Reader in, T& value, const Place& at) {
  if constexpr (std::same_as<T, bool>) {
    const auto raw = decode_integer<uint8_t>(in, at);
    if (raw > 1) fail(at, "value ", int{raw}, " is not a bool");
    value = raw == 1;
  } else if constexpr (std::same_as<T, DType>) {
    const auto raw = decode_integer<uint8_t>(in, at);
    if (raw >= std::size(kAllDTypes)) fail(at, "unknown dtype ", int{raw});
    value = static_cast<DType>(raw);
  } else if constexpr (std::is_enum_v<T>) {
    // Any value of the underlying type: ir::infer refuses one that names no enumerator.
    value = static_cast<T>(decode_integer<std::underlying_type_t<T>>(in, at));
  } else if constexpr (std::integral<T>) {
    value = decode_integer<T>(in, at);
  } else if constexpr (std::floating_point<T>) {
    require_kind(in, Field::REAL, at);
    value = in.getReal();
  } else if constexpr (std::same_as<T, Scalar>) {
    require_kind(in, Field::SCALAR, at);
    const auto scalar = in.getScalar();
    if (scalar.getKind() > static_cast<uint8_t>(Scalar::Kind::Bool))
      fail(at, "unknown scalar kind ", int{scalar.getKind()});
    value.kind = static_cast<Scalar::Kind>(scalar.getKind());
    value.f = scalar.getReal();
    value.i = scalar.getInt();
  } else if constexpr (std::same_as<T, Shape>) {
    value = Shape(decode_int_field(in, at));
  } else if constexpr (std::same_as<T, std::vector<int64_t>>) {
    value = decode_int_field(in, at);
  } else if constexpr (std::same_as<T, std::vector<double>>) {
    require_kind(in, Field::REALS, at);
    value.clear();
    for (double real : in.getReals())
      value.push_back(real);
  } else if constexpr (kIsOptional<T>) {
    if (in.isAbsent()) {
      value.reset();
    } else {
      decode_value(in, value.emplace(), at);
    }
  } else if constexpr (kIsVector<T>) {
    require_kind(in, Field::GROUP, at);
    const auto list = in.getGroup();
    value.resize(list.size());
    for (unsigned i = 0; i < list.size(); ++i)
      decode_group(list[i], value[i], at);
  } else {
    decode_group(in, value, at);
  }
}

/// An op of alternative T decoded from call's members.
template <typename T>
ir::Op decode_alternative(proto::OpCall::Reader call) {
  T op{};
  Place at{ir::name(ir::Op{op}), 0};
  const auto fields = call.getFields();
  if (fields.size() != ir::member_count<T>())
    throw InvalidArgument(ir::rules::concat("[remote] op '", at.op, "' has ", fields.size(),
                                            " members, expected ", ir::member_count<T>()));
  ir::for_each_field(op, [&](auto& member) {
    decode_value(fields[static_cast<unsigned>(at.member)], member, at);
    ++at.member;
  });
  return op;
}

template <std::size_t... I>
ir::Op decode_by_index(std::size_t index, proto::OpCall::Reader call, std::index_sequence<I...>) {
  using Decoder = ir::Op (*)(proto::OpCall::Reader);
  static constexpr Decoder kDecoders[] = {
      &decode_alternative<std::variant_alternative_t<I, ir::Op>>...};
  return kDecoders[index](call);
}

}  // namespace

void encode_op(const ir::Op& op, proto::OpCall::Builder call) {
  call.setOp(static_cast<uint16_t>(op.index()));
  std::visit(
      [&](const auto& specific) {
        using T = std::decay_t<decltype(specific)>;
        auto fields = call.initFields(static_cast<unsigned>(ir::member_count<T>()));
        unsigned index = 0;
        ir::for_each_field(specific,
                           [&](const auto& member) { encode_value(member, fields[index++]); });
      },
      op);
}

ir::Op decode_op(proto::OpCall::Reader call) {
  constexpr std::size_t kAlternatives = std::variant_size_v<ir::Op>;
  if (call.getOp() >= kAlternatives)
    throw InvalidArgument(ir::rules::concat("[remote] unknown op ", call.getOp(),
                                            " (this server has ", kAlternatives, ")"));
  return decode_by_index(call.getOp(), call, std::make_index_sequence<kAlternatives>{});
}

}  // namespace ember::wire
