#include "ember/device_settings.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, const DeviceSettings& s) {
  return os << "DeviceSettings { float_dtype: " << s.float_dtype << ", int_dtype: " << s.int_dtype
            << ", bool_dtype: " << to_dtype(s.bool_dtype) << " }";
}

}  // namespace ember
