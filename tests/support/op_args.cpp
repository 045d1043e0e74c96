#include "support/op_args.h"

#include <stdexcept>

namespace ember::test {

const ArgValue& OpArgs::at(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::invalid_argument("[OpArgs] no argument '" + key + "'");
  return it->second;
}

template <typename T>
const T& OpArgs::get(const std::string& key) const {
  const T* value = std::get_if<T>(&at(key));
  if (!value) throw std::invalid_argument("[OpArgs] argument '" + key + "' has another type");
  return *value;
}

int64_t OpArgs::integer(const std::string& key) const {
  return get<int64_t>(key);
}

double OpArgs::real(const std::string& key) const {
  if (const auto* i = std::get_if<int64_t>(&at(key))) return static_cast<double>(*i);
  return get<double>(key);
}

bool OpArgs::flag(const std::string& key) const {
  return get<bool>(key);
}

Scalar OpArgs::scalar(const std::string& key) const {
  const ArgValue& value = at(key);
  if (const auto* b = std::get_if<bool>(&value)) return Scalar(*b);
  if (const auto* i = std::get_if<int64_t>(&value)) return Scalar(*i);
  return Scalar(get<double>(key));
}

std::vector<int64_t> OpArgs::ints(const std::string& key) const {
  return get<std::vector<int64_t>>(key);
}

std::vector<Slice> OpArgs::slices(const std::string& key) const {
  return get<std::vector<Slice>>(key);
}

DType OpArgs::dtype(const std::string& key) const {
  const std::string& name = get<std::string>(key);
  const auto dtype = dtype_from_name(name);
  if (!dtype) throw std::invalid_argument("[OpArgs] argument '" + key + "': no dtype " + name);
  return *dtype;
}

TensorKind OpArgs::kind(const std::string& key) const {
  const std::string& name = get<std::string>(key);
  if (name == "float") return TensorKind::Float;
  if (name == "int") return TensorKind::Int;
  if (name == "bool") return TensorKind::Bool;
  throw std::invalid_argument("[OpArgs] argument '" + key + "': no tensor kind " + name);
}

}  // namespace ember::test
