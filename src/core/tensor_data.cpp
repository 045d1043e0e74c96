// TensorData: construction checks, dtype conversion, comparison and printing.
#include "ember/tensor_data.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/host_blocks.h"
#include "core/number_format.h"
#include "core/tensor_bytes.h"

namespace ember {
namespace {

/// Streams every argument into one string (for error messages).
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// The bytes a tensor of shape and dtype takes; InvalidArgument for a negative dim or a size past
/// the int64 limit every tensor keeps (core/tensor_bytes.h).
std::size_t byte_count_of(const Shape& shape, DType dtype) {
  for (int64_t dim : shape.dims()) {
    if (dim < 0) throw InvalidArgument(concat("[TensorData] shape ", shape, " has a negative dim"));
  }
  const std::optional<int64_t> bytes = detail::checked_tensor_bytes(shape, dtype);
  if (!bytes) {
    throw InvalidArgument(
        concat("[TensorData] shape ", shape, " of ", dtype, ' ', detail::kTooLargeForInt64));
  }
  return static_cast<std::size_t>(*bytes);
}

/// The row-major multi-index of element flat, as a Shape so it prints as "[1, 2]".
Shape multi_index(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.rank());
  const std::vector<int64_t> strides = shape.contiguous_strides();
  for (std::size_t dim = 0; dim < shape.rank(); ++dim) {
    index[dim] = flat / strides[dim];
    flat %= strides[dim];
  }
  return Shape(std::move(index));
}

bool values_close(double a, double b, Tolerance tol) {
  if (a == b) return true;  // includes infinities of the same sign
  if (std::isnan(a) && std::isnan(b)) return true;
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  return std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b);
}

template <typename T>
void print_element(std::ostream& os, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (value ? "true" : "false");
  } else if constexpr (std::is_floating_point_v<T>) {
    os << core::shortest_decimal(value);
  } else if constexpr (std::is_integral_v<T>) {
    os << +value;  // + promotes int8_t / uint8_t, which would otherwise print as characters
  } else {
    os << value;  // Half, BFloat16
  }
}

/// Prints values of one dtype as nested lists, one bracket level per dim.
template <typename T>
class NestedPrinter {
 public:
  /// NumPy's defaults: summarize past 1000 elements, keeping 3 entries at each edge of a dim.
  static constexpr int64_t kSummaryThreshold = 1000;
  static constexpr int64_t kEdgeItems = 3;

  NestedPrinter(std::ostream& os, std::span<const T> values, const Shape& shape)
      : os_(os),
        values_(values),
        shape_(shape),
        strides_(shape.contiguous_strides()),
        summarize_(shape.num_elements() > kSummaryThreshold) {}

  void print(std::size_t dim = 0, int64_t offset = 0) {
    if (dim == shape_.rank()) {
      print_element(os_, values_[static_cast<std::size_t>(offset)]);
      return;
    }
    const int64_t size = shape_[dim];
    os_ << '[';
    for (int64_t i = 0; i < size; ++i) {
      if (i > 0) os_ << ", ";
      if (summarize_ && size > 2 * kEdgeItems && i == kEdgeItems) {
        os_ << "...";
        i = size - kEdgeItems - 1;  // the loop's ++i continues at the first trailing entry
        continue;
      }
      print(dim + 1, offset + i * strides_[dim]);
    }
    os_ << ']';
  }

 private:
  std::ostream& os_;
  std::span<const T> values_;
  const Shape& shape_;
  std::vector<int64_t> strides_;
  bool summarize_;
};

}  // namespace

namespace detail {

void check_bool_bytes(std::span<const std::byte> bytes, std::string_view what) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto value = std::to_integer<unsigned>(bytes[i]);
    if (value > 1) {
      throw InvalidArgument(
          concat("[", what, "] bool byte ", i, " is ", value, ", which is neither 0 nor 1"));
    }
  }
}

/// An uninitialised block's alignment: a cache line, and the widest SIMD vector.
constexpr std::size_t kBlockAlignment = 64;

TensorBytes TensorBytes::uninitialized(std::size_t size) {
  TensorBytes bytes;
  if (size > 0) bytes.block_ = {allocate_host_block(size, kBlockAlignment), FreeTensorBlock{size}};
  return bytes;
}

void FreeTensorBlock::operator()(std::byte* block) const noexcept {
  free_host_block(block, size, kBlockAlignment);
}

TensorBytes::TensorBytes(const TensorBytes& other) : vector_(other.vector_) {
  if (!other.block_) return;
  *this = uninitialized(other.block_.get_deleter().size);
  std::ranges::copy(other.span(), span().begin());
}

TensorBytes& TensorBytes::operator=(const TensorBytes& other) {
  if (this != &other) *this = TensorBytes(other);
  return *this;
}

std::span<const std::byte> TensorBytes::span() const {
  if (block_) return {block_.get(), block_.get_deleter().size};
  return vector_;
}

std::span<std::byte> TensorBytes::span() {
  if (block_) return {block_.get(), block_.get_deleter().size};
  return vector_;
}

std::vector<std::byte> TensorBytes::into_vector() && {
  if (!block_) return std::move(vector_);
  const std::span<const std::byte> bytes = span();
  return {bytes.begin(), bytes.end()};
}

}  // namespace detail

Tolerance Tolerance::for_dtype(DType d) {
  switch (d) {
    case DType::F64:
      return {1e-10, 1e-12};
    case DType::F32:
      return {1e-5, 1e-6};
    case DType::F16:
      return {1e-2, 1e-3};
    case DType::BF16:
      return {2e-2, 1e-2};
    default:
      return {0.0, 0.0};
  }
}

TensorData::TensorData() : shape_{0} {}

TensorData::TensorData(std::vector<std::byte> bytes, Shape shape, DType dtype)
    : bytes_(std::move(bytes)), shape_(std::move(shape)), dtype_(dtype) {
  const std::size_t expected = byte_count_of(shape_, dtype_);
  if (bytes_.span().size() != expected) {
    throw InvalidArgument(concat("[TensorData] shape ", shape_, " of ", dtype_, " needs ", expected,
                                 " bytes (", shape_.num_elements(), " elements of ",
                                 dtype_size(dtype_), " bytes), got ", bytes_.span().size(),
                                 " bytes"));
  }
  if (dtype_ == DType::Bool) detail::check_bool_bytes(bytes_.span(), "TensorData");
}

TensorData TensorData::uninitialized(Shape shape, DType dtype) {
  TensorData data;
  data.bytes_ = detail::TensorBytes::uninitialized(byte_count_of(shape, dtype));
  data.shape_ = std::move(shape);
  data.dtype_ = dtype;
  return data;
}

TensorData TensorData::zeros(Shape shape, DType dtype) {
  // All-zero bytes are zero in every dtype (and false for bool).
  std::vector<std::byte> bytes(byte_count_of(shape, dtype));
  return TensorData(std::move(bytes), std::move(shape), dtype);
}

TensorData TensorData::convert(DType dtype) const {
  return visit_dtype(dtype, [&]<typename T>() { return TensorData(to_vector<T>(), shape_); });
}

bool TensorData::approx_equal(const TensorData& other, Tolerance tol, std::string* why) const {
  if (shape_ != other.shape_) {
    if (why) *why = concat("shapes differ: ", shape_, " vs ", other.shape_);
    return false;
  }
  const std::vector<double> a = to_vector<double>();
  const std::vector<double> b = other.to_vector<double>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (values_close(a[i], b[i], tol)) continue;
    if (why) {
      *why = concat("values differ at ", multi_index(static_cast<int64_t>(i), shape_), ": ",
                    core::shortest_decimal(a[i]), " vs ", core::shortest_decimal(b[i]), " (rtol ",
                    tol.rtol, ", atol ", tol.atol, ")");
    }
    return false;
  }
  return true;
}

bool operator==(const TensorData& a, const TensorData& b) {
  return a.shape_ == b.shape_ && a.dtype_ == b.dtype_ && std::ranges::equal(a.bytes(), b.bytes());
}

void TensorData::check_element_type(DType requested, const char* op) const {
  if (requested != dtype_) {
    throw InvalidArgument(concat("[", op, "] tensor is ", dtype_, ", requested ", requested));
  }
}

std::ostream& operator<<(std::ostream& os, const TensorData& d) {
  os << "TensorData { shape: " << d.shape() << ", dtype: " << d.dtype() << ", values: ";
  print_values(os, d);
  return os << " }";
}

void print_values(std::ostream& os, const TensorData& data) {
  visit_dtype(data.dtype(),
              [&]<typename T>() { NestedPrinter<T>(os, data.as<T>(), data.shape()).print(); });
}

}  // namespace ember
