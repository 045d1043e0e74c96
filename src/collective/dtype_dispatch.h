// The typed loops of the collectives (host reduction, Gloo's buffers) run on the arithmetic
// dtypes; f16 and bf16 are reduced in f32 (converted before), bool is refused.
#pragma once

#include <string>
#include <type_traits>

#include "ember/dtype.h"
#include "ember/error.h"

namespace ember::collective {

/// f.template operator()<T>() with T the C++ type of dtype; InvalidArgument "[<name>] ..." for
/// f16, bf16 and bool, which collectives do not reduce as they are.
template <typename F>
void visit_arithmetic(const std::string& name, DType dtype, F&& f) {
  visit_dtype(dtype, [&]<typename T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      f.template operator()<T>();
    } else {
      throw InvalidArgument("[" + name + "] no typed reduction for dtype " +
                            std::string(dtype_name(dtype)));
    }
  });
}

}  // namespace ember::collective
