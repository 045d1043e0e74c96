// Linked into every test binary (tests/CMakeLists.txt). Under AddressSanitizer an allocation too
// large for memory then fails as it does in a normal build, with std::bad_alloc (which ember
// reports as an ExecutionError), instead of ASan ending the process: the out-of-memory and
// huge-shape tests check exactly that path. ASAN_OPTIONS still overrides it.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
