#include "ember/autodiff.h"

namespace ember {
namespace {

/// Per thread, so that a NoGradGuard (or a backward pass) on one thread leaves the others
/// recording.
thread_local bool recording = true;

}  // namespace

NoGradGuard::NoGradGuard() : previous_(recording) {
  recording = false;
}

NoGradGuard::~NoGradGuard() {
  recording = previous_;
}

bool autodiff::is_recording() {
  return recording;
}

}  // namespace ember
