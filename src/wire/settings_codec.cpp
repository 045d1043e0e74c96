#include "wire/settings_codec.h"

#include <iterator>
#include <string>

#include "ember/error.h"

namespace ember::wire {
namespace {

/// The DType value sent as field, which must be of the kind is_kind tells.
DType decode_kind(uint8_t value, bool (*is_kind)(DType), const char* field) {
  if (value >= std::size(kAllDTypes) || !is_kind(static_cast<DType>(value)))
    throw InvalidArgument("[remote] settings: " + std::string(field) + " " + std::to_string(value) +
                          " names no dtype of its kind");
  return static_cast<DType>(value);
}

}  // namespace

void encode_settings(const DeviceSettings& settings, proto::Settings::Builder message) {
  message.setFloatDtype(static_cast<uint8_t>(to_dtype(settings.float_dtype)));
  message.setIntDtype(static_cast<uint8_t>(to_dtype(settings.int_dtype)));
  message.setBoolDtype(static_cast<uint8_t>(to_dtype(settings.bool_dtype)));
  message.setF32MatmulPrecision(static_cast<uint8_t>(settings.f32_matmul_precision));
  message.setGraphReplay(settings.graph_replay);
}

DeviceSettings decode_settings(proto::Settings::Reader message) {
  const uint8_t precision = message.getF32MatmulPrecision();
  if (precision > static_cast<uint8_t>(MatmulPrecision::High))
    throw InvalidArgument("[remote] settings: f32 matmul precision " + std::to_string(precision) +
                          " names no precision");
  DeviceSettings settings;
  settings.float_dtype =
      to_float_dtype(decode_kind(message.getFloatDtype(), is_float, "float dtype"));
  settings.int_dtype = to_int_dtype(decode_kind(message.getIntDtype(), is_int, "int dtype"));
  decode_kind(message.getBoolDtype(), is_bool, "bool dtype");  // Bool, the only one
  settings.f32_matmul_precision = static_cast<MatmulPrecision>(precision);
  settings.graph_replay = message.getGraphReplay();
  return settings;
}

}  // namespace ember::wire
