// Every layer of ember::nn: `#include <ember/nn/layers.h>`.
#pragma once

#include "ember/nn/activation.h"           // IWYU pragma: export
#include "ember/nn/attention.h"            // IWYU pragma: export
#include "ember/nn/conv.h"                 // IWYU pragma: export
#include "ember/nn/dropout.h"              // IWYU pragma: export
#include "ember/nn/embedding.h"            // IWYU pragma: export
#include "ember/nn/flatten.h"              // IWYU pragma: export
#include "ember/nn/linear.h"               // IWYU pragma: export
#include "ember/nn/normalization.h"        // IWYU pragma: export
#include "ember/nn/pool.h"                 // IWYU pragma: export
#include "ember/nn/positional_encoding.h"  // IWYU pragma: export
#include "ember/nn/recurrent.h"            // IWYU pragma: export
#include "ember/nn/transformer.h"          // IWYU pragma: export
