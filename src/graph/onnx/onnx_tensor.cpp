// ONNX tensors (initializers, Constant nodes' values, test data) decoded into TensorData, every
// field checked against the others before anything is allocated: a hostile file's dims cannot
// size an allocation, since the data they describe must already be in the message.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ember/error.h"
#include "graph/onnx/onnx_model.h"
#include "ir/rules.h"

namespace ember::detail {
namespace {

using ::onnx::TensorProto;

[[noreturn]] void fail(std::string_view what, const std::string& message) {
  throw InvalidArgument(ir::rules::concat("[onnx::Model] ", what, ": ", message));
}

/// The element count of dims, each checked >= 0 and the bytes within int64.
int64_t checked_elements(const TensorProto& tensor, std::size_t element_size,
                         std::string_view what) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0) fail(what, ir::rules::concat("dim ", dim, " is negative"));
    int64_t bytes = 0;
    if (__builtin_mul_overflow(count, dim, &count) ||
        __builtin_mul_overflow(count, static_cast<int64_t>(element_size), &bytes)) {
      fail(what, "its dims give more bytes than int64 holds");
    }
  }
  return count;
}

Shape shape_of(const TensorProto& tensor) {
  return Shape(std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()));
}

void check_count(int64_t stored, int64_t count, std::string_view field, std::string_view what) {
  if (stored != count) {
    fail(what, ir::rules::concat(field, " holds ", stored, " values, its dims say ", count));
  }
}

/// Values stored in a typed field (float_data, int32_data, ...) as element type T.
template <typename Stored, typename T>
std::vector<std::byte> typed_bytes(const google::protobuf::RepeatedField<Stored>& values) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(values.size()) * sizeof(T));
  for (int i = 0; i < values.size(); ++i) {
    const T value = static_cast<T>(values[i]);
    std::memcpy(bytes.data() + static_cast<std::size_t>(i) * sizeof(T), &value, sizeof(T));
  }
  return bytes;
}

/// The bytes of a tensor without raw_data, from the typed field its data type uses (onnx.proto
/// says which: 16-bit floats are their bit patterns in int32_data).
std::vector<std::byte> field_bytes(const TensorProto& tensor, DType dtype, int64_t count,
                                   std::string_view what) {
  switch (dtype) {
    case DType::F32:
      check_count(tensor.float_data_size(), count, "float_data", what);
      return typed_bytes<float, float>(tensor.float_data());
    case DType::F64:
      check_count(tensor.double_data_size(), count, "double_data", what);
      return typed_bytes<double, double>(tensor.double_data());
    case DType::I64:
      check_count(tensor.int64_data_size(), count, "int64_data", what);
      return typed_bytes<int64_t, int64_t>(tensor.int64_data());
    case DType::U64:
      check_count(tensor.uint64_data_size(), count, "uint64_data", what);
      return typed_bytes<uint64_t, uint64_t>(tensor.uint64_data());
    case DType::U32:
      check_count(tensor.uint64_data_size(), count, "uint64_data", what);
      return typed_bytes<uint64_t, uint32_t>(tensor.uint64_data());
    case DType::I32:
      check_count(tensor.int32_data_size(), count, "int32_data", what);
      return typed_bytes<int32_t, int32_t>(tensor.int32_data());
    case DType::I16:
      check_count(tensor.int32_data_size(), count, "int32_data", what);
      return typed_bytes<int32_t, int16_t>(tensor.int32_data());
    case DType::I8:
      check_count(tensor.int32_data_size(), count, "int32_data", what);
      return typed_bytes<int32_t, int8_t>(tensor.int32_data());
    case DType::U16:
    case DType::F16:
    case DType::BF16:
      check_count(tensor.int32_data_size(), count, "int32_data", what);
      return typed_bytes<int32_t, uint16_t>(tensor.int32_data());
    case DType::U8:
      check_count(tensor.int32_data_size(), count, "int32_data", what);
      return typed_bytes<int32_t, uint8_t>(tensor.int32_data());
    case DType::Bool:
      check_count(tensor.int32_data_size(), count, "int32_data", what);
      for (int32_t value : tensor.int32_data()) {
        if (value != 0 && value != 1) fail(what, ir::rules::concat("bool value ", value));
      }
      return typed_bytes<int32_t, uint8_t>(tensor.int32_data());
  }
  fail(what, "unknown dtype");
}

}  // namespace

TensorData decode_tensor(const TensorProto& tensor, std::string_view what) {
  if (tensor.data_location() == TensorProto::EXTERNAL || tensor.external_data_size() > 0) {
    fail(what,
         "its data is in an external file, which ember does not read: save the model with "
         "its weights inside (onnx.save_model(..., save_as_external_data=False))");
  }
  const std::optional<DType> dtype = dtype_of_onnx(tensor.data_type());
  if (!dtype) {
    fail(what, "element type " + onnx_type_name(tensor.data_type()) + " has no ember dtype");
  }
  const std::size_t element_size = dtype_size(*dtype);
  const int64_t count = checked_elements(tensor, element_size, what);
  std::vector<std::byte> bytes;
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    if (raw.size() != static_cast<uint64_t>(count) * element_size) {
      fail(what, ir::rules::concat("raw_data holds ", raw.size(), " bytes, its dims and type say ",
                                   static_cast<uint64_t>(count) * element_size));
    }
    // Little-endian, as this host; an empty vector's data() may be null, which memcpy may not get.
    bytes.assign(reinterpret_cast<const std::byte*>(raw.data()),
                 reinterpret_cast<const std::byte*>(raw.data()) + raw.size());
  } else {
    bytes = field_bytes(tensor, *dtype, count, what);
  }
  try {
    return TensorData(std::move(bytes), shape_of(tensor), *dtype);
  } catch (const InvalidArgument& e) {  // a bool byte neither 0 nor 1
    fail(what, e.what());
  }
}

}  // namespace ember::detail
