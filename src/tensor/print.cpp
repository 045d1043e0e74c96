#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

#include "ember/tensor.h"

namespace ember::detail {
namespace {

/// The values part of TensorData's operator<< ("TensorData { ..., values: V }" → V), so a
/// tensor prints its values exactly as TensorData does (nesting, NumPy-style abbreviation).
/// Note: a values-only printer declared in tensor_data.h would make this unnecessary.
std::string values_text(const TensorData& data) {
  std::ostringstream printed;
  printed << data;
  const std::string text = printed.str();
  constexpr std::string_view kStart = "values: ";
  constexpr std::string_view kEnd = " }";
  const std::size_t start = text.find(kStart);
  if (start == std::string::npos || !text.ends_with(kEnd)) return text;
  const std::size_t begin = start + kStart.size();
  return text.substr(begin, text.size() - kEnd.size() - begin);
}

}  // namespace

std::ostream& print_tensor(std::ostream& os, const TensorHandle& h) {
  if (!h.defined()) return os << "Tensor { undefined }";
  return os << "Tensor { shape: " << h.shape() << ", dtype: " << h.dtype()
            << ", device: " << h.device() << ", data: " << values_text(ops::into_data(h)) << " }";
}

}  // namespace ember::detail
