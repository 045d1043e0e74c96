// OpArgs: the non-tensor arguments of one op case (dims, scalars, slices, ...), by name. The
// golden suite reads them from golden.json, so every kind of value has a JSON spelling (see
// tests/golden/generate.py): integers, reals, booleans, strings, integer lists and slice lists.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/slice.h"
#include "ember/tensor_handle.h"

namespace ember::test {

/// One argument value.
using ArgValue =
    std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<Slice>>;

class OpArgs {
 public:
  OpArgs() = default;
  OpArgs(std::initializer_list<std::pair<const std::string, ArgValue>> values) : values_(values) {}

  void set(const std::string& key, ArgValue value) { values_[key] = std::move(value); }
  const std::map<std::string, ArgValue>& values() const { return values_; }

  // Typed accessors. A missing key or a value of the wrong kind is a bug in the case (or in
  // golden.json): they throw std::invalid_argument naming the key.
  int64_t integer(const std::string& key) const;
  /// A real; an integer value converts.
  double real(const std::string& key) const;
  bool flag(const std::string& key) const;
  /// A bool, integer or real value as the Scalar of the same kind.
  Scalar scalar(const std::string& key) const;
  std::vector<int64_t> ints(const std::string& key) const;
  std::vector<Slice> slices(const std::string& key) const;
  /// A dtype written by name ("f32").
  DType dtype(const std::string& key) const;
  /// A tensor kind written by name ("float", "int", "bool").
  TensorKind kind(const std::string& key) const;

 private:
  const ArgValue& at(const std::string& key) const;
  template <typename T>
  const T& get(const std::string& key) const;

  std::map<std::string, ArgValue> values_;
};

}  // namespace ember::test
