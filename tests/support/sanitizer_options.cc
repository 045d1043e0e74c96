// Linked into every test binary (tests/CMakeLists.txt). Under AddressSanitizer an allocation too
// large for memory through malloc or a nothrow operator new then returns null, as in a normal
// build (flex's allocator turns that into an ExecutionError), instead of ASan ending the process.
// The throwing operator new still ends it (support/sanitizer.h). ASAN_OPTIONS overrides this.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
