// thread_instance<T>(): the calling thread's own T, for a use that cannot nest (a short call
// that neither re-enters nor calls out, such as taking a spare value or keeping one). Cheaper than
// a ThreadKept (core/thread_kept.h), which lends its T out so that nested users get their own:
// on a tiny tensor's op the lending is a visible part of the cost.
#pragma once

namespace ember::detail {

/// The calling thread's T, made on first use; null once it was destroyed at thread exit (an op
/// in a static destructor), where the caller does without.
template <typename T>
T* thread_instance() {
  // Note: the pointer is trivially destructible and constant-initialized, so that the usual call
  // reads it without the guard of a thread_local holder (and reads null after its destruction).
  thread_local T* instance = nullptr;
  thread_local bool destroyed = false;
  if (instance != nullptr) [[likely]]
    return instance;
  if (destroyed) return nullptr;
  struct Holder {
    T value;
    ~Holder() {
      instance = nullptr;
      destroyed = true;
    }
  };
  thread_local Holder holder;
  instance = &holder.value;
  return instance;
}

}  // namespace ember::detail
