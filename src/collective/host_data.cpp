#include "collective/host_data.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "collective/dtype_dispatch.h"

namespace ember::collective {
namespace {

const char* op_name(int op) {
  switch (static_cast<ReduceOp>(op)) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Mean:
      return "mean";
    case ReduceOp::Max:
      return "max";
  }
  return "?";
}

/// Bytes of one row of dim 0.
std::size_t row_bytes(const TensorData& data) {
  const int64_t rows = data.shape().dims().at(0);
  return rows == 0 ? 0 : data.bytes().size() / static_cast<std::size_t>(rows);
}

}  // namespace

std::string describe(const Call& call) {
  std::ostringstream out;
  out << call.shape << " " << dtype_name(call.dtype);
  if (call.name == "broadcast") {
    out << " from root " << call.argument;
  } else if (call.name != "all_gather") {
    out << " by " << op_name(call.argument);
  }
  return out.str();
}

void check_same_calls(std::span<const Call> calls, std::span<const std::string> labels) {
  for (std::size_t i = 1; i < calls.size(); ++i) {
    if (calls[i] == calls[0]) continue;
    throw InvalidArgument("[" + calls[0].name + "] the ranks disagree: " + labels[0] + " passed " +
                          calls[0].name + " " + describe(calls[0]) + ", " + labels[i] + " " +
                          calls[i].name + " " + describe(calls[i]));
  }
}

void check_reducible(const std::string& name, DType dtype, ReduceOp op) {
  const bool is_float =
      dtype == DType::F64 || dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
  if (dtype == DType::Bool || (op == ReduceOp::Mean && !is_float)) {
    throw InvalidArgument("[" + name + "] cannot reduce dtype " + std::string(dtype_name(dtype)) +
                          " by " + op_name(static_cast<int>(op)));
  }
}

DType accumulation_dtype(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 ? DType::F32 : dtype;
}

void reduce_into(TensorData& acc, const TensorData& x, ReduceOp op) {
  visit_arithmetic("all_reduce", acc.dtype(), [&]<typename T>() {
    const std::span<T> a = acc.as_mut<T>();
    const std::span<const T> b = x.as<T>();
    if (op == ReduceOp::Max) {
      for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = std::max(a[i], b[i]);
    } else {
      for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<T>(a[i] + b[i]);
    }
  });
}

void divide(TensorData& data, int64_t count) {
  visit_arithmetic("all_reduce", data.dtype(), [&]<typename T>() {
    for (T& value : data.as_mut<T>())
      value = static_cast<T>(value / static_cast<T>(count));
  });
}

TensorData rows(const TensorData& data, int64_t part, int64_t parts) {
  std::vector<int64_t> dims = data.shape().dims();
  const int64_t per_part = dims.at(0) / parts;
  dims[0] = per_part;
  const std::size_t bytes = row_bytes(data) * static_cast<std::size_t>(per_part);
  const auto first = data.bytes().begin() + static_cast<std::ptrdiff_t>(bytes) * part;
  return TensorData(std::vector<std::byte>(first, first + static_cast<std::ptrdiff_t>(bytes)),
                    Shape(dims), data.dtype());
}

TensorData concat_rows(std::span<const TensorData> parts) {
  std::vector<int64_t> dims = parts.front().shape().dims();
  std::vector<std::byte> bytes;
  dims[0] = 0;
  for (const TensorData& part : parts) {
    dims[0] += part.shape().dims().at(0);
    bytes.insert(bytes.end(), part.bytes().begin(), part.bytes().end());
  }
  return TensorData(std::move(bytes), Shape(dims), parts.front().dtype());
}

}  // namespace ember::collective
