// suite_device(): the device the layer, optimizer and training suites (tests/nn, tests/optim,
// tests/train) run on, so that one build checks them on any backend, a GPU's included:
//   EMBER_TEST_DEVICE=cuda:0 build/tests/ember_nn_tests
// The variable takes the names Device::from_name parses ("cuda:0", "cpu", "flex", "ndarray", ...);
// unset or empty, the suites run on ndarray, the reference backend.
#pragma once

#include "ember/device.h"

namespace ember::test {

/// The device EMBER_TEST_DEVICE names (without autodiff; a test that needs it adds .autodiff()),
/// or Device::ndarray() when the variable is unset or empty. Resolved once per process. A name
/// that does not parse, whose backend is not compiled in, or that no local device answers to
/// (cuda:0 on a machine without a GPU) ends the process with a message naming the variable and
/// its value: a suite never falls back quietly to another device than the one asked for, and the
/// error cannot be taken for an exception a test expects. A device found is named once on stderr.
Device suite_device();

}  // namespace ember::test
