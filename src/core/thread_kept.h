// ThreadKept<T>: a T the calling thread keeps from one use to the next, so that values assigned
// into it reuse the memory an earlier use allocated (shapes, strides, vectors: each fresh copy a
// heap allocation, a visible part of an op on a tiny tensor). One user at a time: a nested user
// (a backend running ops of its own), or one after the thread's T was destroyed at thread exit
// (an op in a static destructor), gets a fresh T of its own.
#pragma once

#include <optional>

namespace ember::detail {

template <typename T>
class ThreadKept {
 public:
  ThreadKept() : kept_(!in_use()), value_(kept_ ? &thread_value() : &own_.emplace()) {
    if (kept_) in_use() = true;
  }
  ~ThreadKept() {
    if (kept_) in_use() = false;
  }
  ThreadKept(const ThreadKept&) = delete;
  ThreadKept& operator=(const ThreadKept&) = delete;

  T& get() { return *value_; }

 private:
  /// Whether the thread's T is lent out. Trivially destructible, so that it still reads true once
  /// the thread's T is destroyed at thread exit.
  static bool& in_use() {
    thread_local bool lent = false;
    return lent;
  }
  static T& thread_value() {
    struct Holder {
      T value;
      ~Holder() { in_use() = true; }
    };
    thread_local Holder holder;
    return holder.value;
  }

  bool kept_;
  std::optional<T> own_;  ///< Made only when the thread's T is lent out already.
  T* value_;
};

}  // namespace ember::detail
