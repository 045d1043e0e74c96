// Per-device defaults: the dtypes tensors take when creation names none.
#pragma once

#include <optional>
#include <ostream>

#include "ember/dtype.h"

namespace ember {

/// How f32 matrix products (matmul, convolution) may round their inputs.
enum class MatmulPrecision {
  /// Full f32 products, as on the CPU (the default on every device).
  Highest,
  /// The inputs may be rounded to TF32 (10-bit mantissa, f32 accumulation) where the device has
  /// tensor cores for it (cuda); devices without them compute as Highest.
  High,
};

/// "highest" or "high".
std::ostream& operator<<(std::ostream& os, MatmulPrecision p);

/// The default dtypes of a device, the precision of its f32 matrix products, and whether it
/// replays repeated work as graphs.
struct DeviceSettings {
  FloatDType float_dtype = FloatDType::F32;
  IntDType int_dtype = IntDType::I64;
  BoolDType bool_dtype = BoolDType::Bool;
  MatmulPrecision f32_matmul_precision = MatmulPrecision::Highest;
  /// A chunk of launches seen before is replayed as a CUDA graph (cuda; other devices have no
  /// graphs and ignore it). On by default: a replay computes exactly what the launches would.
  bool graph_replay = true;
  friend bool operator==(const DeviceSettings&, const DeviceSettings&) = default;
};

/// Prints "DeviceSettings { float_dtype: f32, int_dtype: i64, bool_dtype: bool,
/// f32_matmul_precision: highest, graph_replay: on }".
std::ostream& operator<<(std::ostream& os, const DeviceSettings& s);

/// What Device::configure changes; fields left empty keep the backend default.
/// Builds from a FloatDType, an IntDType, a {FloatDType, IntDType} pair or the setters.
struct DeviceConfig {
  std::optional<FloatDType> float_dtype;
  std::optional<IntDType> int_dtype;
  std::optional<MatmulPrecision> f32_matmul_precision;
  std::optional<bool> graph_replay;

  DeviceConfig() = default;
  DeviceConfig(FloatDType f) : float_dtype(f) {}  // NOLINT: implicit on purpose
  DeviceConfig(IntDType i) : int_dtype(i) {}      // NOLINT
  DeviceConfig(FloatDType f, IntDType i) : float_dtype(f), int_dtype(i) {}

  DeviceConfig& with_float_dtype(FloatDType f) {
    float_dtype = f;
    return *this;
  }
  DeviceConfig& with_int_dtype(IntDType i) {
    int_dtype = i;
    return *this;
  }
  DeviceConfig& with_f32_matmul_precision(MatmulPrecision p) {
    f32_matmul_precision = p;
    return *this;
  }
  /// Off: every launch is issued one by one (to profile single kernels, or to rule graphs out).
  DeviceConfig& with_graph_replay(bool on) {
    graph_replay = on;
    return *this;
  }
};

}  // namespace ember
