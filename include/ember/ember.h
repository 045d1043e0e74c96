// Umbrella header: the whole public API of ember.
#pragma once

#include "ember/activation_functions.h"  // IWYU pragma: export
#include "ember/autodiff.h"              // IWYU pragma: export
#include "ember/device.h"                // IWYU pragma: export
#include "ember/devices.h"               // IWYU pragma: export
#include "ember/distribution.h"          // IWYU pragma: export
#include "ember/dtype.h"                 // IWYU pragma: export
#include "ember/error.h"                 // IWYU pragma: export
#include "ember/functional.h"            // IWYU pragma: export
#include "ember/graph.h"                 // IWYU pragma: export
#include "ember/interop.h"               // IWYU pragma: export
#include "ember/onnx.h"                  // IWYU pragma: export
#include "ember/shape.h"                 // IWYU pragma: export
#include "ember/tensor.h"                // IWYU pragma: export
#include "ember/tensor_data.h"           // IWYU pragma: export
#include "ember/tensor_options.h"        // IWYU pragma: export
#include "ember/threads.h"               // IWYU pragma: export
