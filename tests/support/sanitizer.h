// What the sanitizer build changes for the tests.
#pragma once

namespace ember::test {

/// Whether running out of memory surfaces as std::bad_alloc in this build, as ember's
/// out-of-memory path expects: not under AddressSanitizer, whose operator new reports running out
/// of memory and ends the process instead of throwing (only the nothrow forms return null, with
/// allocator_may_return_null=1, support/sanitizer_options.cc). The default build runs those tests.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kOutOfMemoryThrows = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kOutOfMemoryThrows = false;
#else
inline constexpr bool kOutOfMemoryThrows = true;
#endif
#else
inline constexpr bool kOutOfMemoryThrows = true;
#endif

/// Why a test of running out of memory is skipped where kOutOfMemoryThrows is false.
inline constexpr const char* kAsanEndsOnOutOfMemory =
    "AddressSanitizer's operator new ends the process when memory runs out instead of throwing "
    "std::bad_alloc: this test runs in the default build";

}  // namespace ember::test
