// Everything in ember::data: datasets, the data loader, the IDX reader and the MNIST-format
// datasets.
#pragma once

#include "ember/data/dataloader.h"         // IWYU pragma: export
#include "ember/data/dataset.h"            // IWYU pragma: export
#include "ember/data/fashion_mnist.h"      // IWYU pragma: export
#include "ember/data/idx.h"                // IWYU pragma: export
#include "ember/data/in_memory_dataset.h"  // IWYU pragma: export
#include "ember/data/mapped_dataset.h"     // IWYU pragma: export
#include "ember/data/mnist.h"              // IWYU pragma: export
#include "ember/data/partial_dataset.h"    // IWYU pragma: export
#include "ember/data/permutation.h"        // IWYU pragma: export
#include "ember/data/shuffled_dataset.h"   // IWYU pragma: export
#include "ember/data/window_dataset.h"     // IWYU pragma: export
