// The members of an op struct, found from its definition alone: for_each_field(op, f) calls f on
// each member in declaration order. Whatever writes ops out (the remote protocol, src/wire)
// derives its encoding from this, so a new op or a new member needs no code there.
//
// An op struct is an aggregate; its member count is the most initializers T{...} accepts from a
// value convertible to anything (no brace elision happens when every initializer converts), and
// structured bindings then name the members.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace ember::ir {

namespace detail {

/// Converts to any member type, so that T{AnyMember{}...} probes how many members T has.
struct AnyMember {
  template <typename T>
  operator T&() const&& noexcept;  // NOLINT: implicit on purpose; declared only (unevaluated)
};

template <typename T, std::size_t... I>
constexpr bool initializes_from(std::index_sequence<I...>) {
  return requires {
    T{(static_cast<void>(I), AnyMember{})...};
  };
}

}  // namespace detail

/// How many members the aggregate T has.
template <typename T, std::size_t kCounted = 0>
constexpr std::size_t member_count() {
  if constexpr (detail::initializes_from<T>(std::make_index_sequence<kCounted + 1>{})) {
    return member_count<T, kCounted + 1>();
  } else {
    return kCounted;
  }
}

/// Whether T is walked member by member (an op struct or an aggregate inside one: ConvGeometry,
/// SliceRange, Pool, ...) rather than treated as one value (Shape, Scalar, a vector, a number).
template <typename T>
concept FieldAggregate = std::is_aggregate_v<T> && std::is_class_v<T>;

/// Calls f(member) on each member of the aggregate value (const or not), in declaration order.
template <FieldAggregate T, typename F>
void for_each_field(T& value, F&& f) {
  constexpr std::size_t kCount = member_count<std::remove_const_t<T>>();
  static_assert(kCount <= 10, "for_each_field: extend the bindings below for this op struct");
  if constexpr (kCount == 0) {
    (void)value;
    (void)f;
  } else if constexpr (kCount == 1) {
    auto& [a] = value;
    f(a);
  } else if constexpr (kCount == 2) {
    auto& [a, b] = value;
    f(a), f(b);
  } else if constexpr (kCount == 3) {
    auto& [a, b, c] = value;
    f(a), f(b), f(c);
  } else if constexpr (kCount == 4) {
    auto& [a, b, c, d] = value;
    f(a), f(b), f(c), f(d);
  } else if constexpr (kCount == 5) {
    auto& [a, b, c, d, e] = value;
    f(a), f(b), f(c), f(d), f(e);
  } else if constexpr (kCount == 6) {
    auto& [a, b, c, d, e, g] = value;
    f(a), f(b), f(c), f(d), f(e), f(g);
  } else if constexpr (kCount == 7) {
    auto& [a, b, c, d, e, g, h] = value;
    f(a), f(b), f(c), f(d), f(e), f(g), f(h);
  } else if constexpr (kCount == 8) {
    auto& [a, b, c, d, e, g, h, i] = value;
    f(a), f(b), f(c), f(d), f(e), f(g), f(h), f(i);
  } else if constexpr (kCount == 9) {
    auto& [a, b, c, d, e, g, h, i, j] = value;
    f(a), f(b), f(c), f(d), f(e), f(g), f(h), f(i), f(j);
  } else {
    auto& [a, b, c, d, e, g, h, i, j, k] = value;
    f(a), f(b), f(c), f(d), f(e), f(g), f(h), f(i), f(j), f(k);
  }
}

}  // namespace ember::ir
