// TensorData: a tensor's values on the host — owning bytes, a shape and a dtype. It is what
// crosses between the user and a device (from_data, into_data) and between devices.
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/shape.h"

namespace ember {

/// Tolerances for TensorData::approx_equal: |a - b| <= atol + rtol * |b|.
struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-8;
  /// Tolerances suited to a dtype's precision (rtol / atol): f64 1e-10 / 1e-12, f32 1e-5 / 1e-6,
  /// f16 1e-2 / 1e-3, bf16 2e-2 / 1e-2; integers and bool exact (0 / 0).
  static Tolerance for_dtype(DType d);
};

namespace detail {

/// Frees a TensorBytes block (its size tells how it was allocated).
struct FreeTensorBlock {
  std::size_t size = 0;
  void operator()(std::byte* block) const noexcept;
};

/// TensorData's bytes: a vector given by the caller, or a block of its own allocated without
/// initialising it (TensorData::uninitialized). Copies are deep.
class TensorBytes {
 public:
  TensorBytes() = default;
  explicit TensorBytes(std::vector<std::byte> bytes) : vector_(std::move(bytes)) {}
  /// size bytes, not initialised (large blocks on huge pages: core/host_blocks.h).
  static TensorBytes uninitialized(std::size_t size);
  TensorBytes(const TensorBytes& other);
  TensorBytes& operator=(const TensorBytes& other);
  TensorBytes(TensorBytes&&) noexcept = default;
  TensorBytes& operator=(TensorBytes&&) noexcept = default;
  ~TensorBytes() = default;

  std::span<const std::byte> span() const;
  std::span<std::byte> span();
  /// The bytes as a vector: moved out where they are one, else copied.
  std::vector<std::byte> into_vector() &&;

 private:
  std::vector<std::byte> vector_;  // empty when block_ holds the bytes
  std::unique_ptr<std::byte[], FreeTensorBlock> block_;
};

}  // namespace detail

class TensorData {
 public:
  /// An empty f32 tensor of shape [0].
  TensorData();
  /// Takes raw bytes in row-major order. InvalidArgument when a dim is negative, when the byte
  /// count does not match shape and dtype, or when a Bool byte is neither 0 nor 1.
  TensorData(std::vector<std::byte> bytes, Shape shape, DType dtype);
  /// Values in row-major order; dtype taken from T. InvalidArgument when the count and shape
  /// disagree.
  template <typename T>
  TensorData(const std::vector<T>& values, Shape shape)
      : TensorData(values, std::move(shape), dtype_of<T>(), 0) {}
  /// Values converted to dtype.
  template <typename T>
  TensorData(const std::vector<T>& values, Shape shape, DType dtype);
  /// A tensor of shape and dtype filled with zeros.
  static TensorData zeros(Shape shape, DType dtype);
  /// A tensor of shape and dtype whose bytes are not initialised: for a producer that writes every
  /// one of them through bytes_mut() before anything reads them (a download read straight into
  /// it), which then neither clears memory it overwrites anyway nor touches it twice. A Bool
  /// tensor's bytes must be left 0 or 1. InvalidArgument when a dim is negative or the size is
  /// past the int64 limit.
  static TensorData uninitialized(Shape shape, DType dtype);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  std::span<const std::byte> bytes() const { return bytes_.span(); }
  /// Writable bytes; a Bool element must stay 0 or 1.
  std::span<std::byte> bytes_mut() { return bytes_.span(); }
  /// The bytes, moved out (copied for a TensorData made by uninitialized).
  std::vector<std::byte> into_bytes() && { return std::move(bytes_).into_vector(); }

  /// The values viewed as T; InvalidArgument unless T is exactly this dtype's element type.
  template <typename T>
  std::span<const T> as() const;
  template <typename T>
  std::span<T> as_mut();
  /// The values converted to T (any arithmetic type, Half or BFloat16).
  template <typename T>
  std::vector<T> to_vector() const;
  /// A copy converted to dtype element by element, as detail::convert_element does (float→int
  /// truncates toward zero and saturates, NaN → 0; int→int wraps; →bool is "!= 0").
  TensorData convert(DType dtype) const;
  /// Same shape and values within tol elementwise (|a - b| <= atol + rtol * |b|, b from other),
  /// compared in double, so the dtypes may differ; NaN equals NaN, an infinity only the same
  /// infinity. Integers beyond 2^53 compare as their nearest doubles: use == for exactness.
  /// On mismatch, *why (if given) names the differing shapes, or the first differing index and
  /// both values.
  bool approx_equal(const TensorData& other, Tolerance tol, std::string* why = nullptr) const;
  /// Exact: same shape, dtype and bytes.
  friend bool operator==(const TensorData& a, const TensorData& b);

 private:
  template <typename T>
  TensorData(const std::vector<T>& values, Shape shape, DType dtype, int /*raw tag*/);
  void check_element_type(DType requested, const char* op) const;

  detail::TensorBytes bytes_;
  Shape shape_;
  DType dtype_ = DType::F32;
};

/// Prints "TensorData { shape: [2, 3], dtype: f32, values: [[1, 2, 3], [4, 5, 6]] }", the values
/// as print_values writes them.
std::ostream& operator<<(std::ostream& os, const TensorData& d);
/// Prints data's values alone, nested one bracket level per dim: "[[1, 2, 3], [4, 5, 6]]" (bools
/// as true / false, floats in their shortest exact decimal). Past 1000 elements each dim longer
/// than 6 shows its first and last 3 entries around "...", as NumPy.
void print_values(std::ostream& os, const TensorData& data);

namespace detail {
/// Converts one element between any two ember element types, correctly rounded: int→int wraps
/// (two's complement), float→int truncates toward zero and saturates (NaN → 0), →bool is
/// "!= 0", and conversions to Half / BFloat16 round once (see round_to_odd_float).
template <typename To, typename From>
To convert_element(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert_element<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_same_v<From, float>) {
      return To(v);
    } else if constexpr (std::is_same_v<From, double>) {
      return To(round_to_odd_float(v));
    } else {
      using Wide = std::conditional_t<std::is_signed_v<From>, int64_t, uint64_t>;
      return To(round_to_odd_float(static_cast<Wide>(v)));
    }
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // Saturate instead of the undefined behaviour of an out-of-range cast; NaN becomes 0.
    if (v != v) return To{0};
    if (v <= static_cast<From>(std::numeric_limits<To>::lowest()))
      return std::numeric_limits<To>::lowest();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}
}  // namespace detail

template <typename T>
TensorData::TensorData(const std::vector<T>& values, Shape shape, DType dtype)
    : TensorData(values, std::move(shape)) {
  if (dtype != dtype_) *this = convert(dtype);
}

template <typename T>
TensorData::TensorData(const std::vector<T>& values, Shape shape, DType dtype, int)
    : TensorData(
          [&] {
            // Element by element: std::vector<bool> has no contiguous storage.
            std::vector<std::byte> b(values.size() * sizeof(T));
            for (std::size_t i = 0; i < values.size(); ++i) {
              const T v = values[i];
              std::memcpy(b.data() + i * sizeof(T), &v, sizeof(T));
            }
            return b;
          }(),
          std::move(shape), dtype) {}

template <typename T>
std::span<const T> TensorData::as() const {
  check_element_type(dtype_of<T>(), "TensorData::as");
  const std::span<const std::byte> b = bytes();
  return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
}

template <typename T>
std::span<T> TensorData::as_mut() {
  check_element_type(dtype_of<T>(), "TensorData::as_mut");
  const std::span<std::byte> b = bytes_mut();
  return {reinterpret_cast<T*>(b.data()), b.size() / sizeof(T)};
}

template <typename T>
std::vector<T> TensorData::to_vector() const {
  return visit_dtype(dtype_, [&]<typename S>() {
    auto src = as<S>();
    std::vector<T> out;
    out.reserve(src.size());
    for (S v : src) {
      out.push_back(detail::convert_element<T>(v));
    }
    return out;
  });
}

}  // namespace ember
