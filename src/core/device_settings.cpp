#include "ember/device_settings.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, MatmulPrecision p) {
  switch (p) {
    case MatmulPrecision::Highest:
      return os << "highest";
    case MatmulPrecision::High:
      return os << "high";
  }
  return os << "MatmulPrecision(" << static_cast<int>(p) << ")";
}

std::ostream& operator<<(std::ostream& os, const DeviceSettings& s) {
  return os << "DeviceSettings { float_dtype: " << s.float_dtype << ", int_dtype: " << s.int_dtype
            << ", bool_dtype: " << to_dtype(s.bool_dtype)
            << ", f32_matmul_precision: " << s.f32_matmul_precision
            << ", graph_replay: " << (s.graph_replay ? "on" : "off") << " }";
}

}  // namespace ember
