// shaderc's verdict on a GLSL compute shader, without a device: for the tests of kernels' sources
// (the emitter's, the matmul kernels').
#pragma once

#include <shaderc/shaderc.h>

#include <string>

namespace ember::test {

/// "" when source compiles to SPIR-V for Vulkan 1.1 (as the kernel cache compiles), else the log.
inline std::string compile_errors(const std::string& source) {
  const shaderc_compiler_t compiler = shaderc_compiler_initialize();
  const shaderc_compile_options_t options = shaderc_compile_options_initialize();
  shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan,
                                         shaderc_env_version_vulkan_1_1);
  const shaderc_compilation_result_t result =
      shaderc_compile_into_spv(compiler, source.c_str(), source.size(), shaderc_glsl_compute_shader,
                               "t.comp", "main", options);
  std::string log;
  if (shaderc_result_get_compilation_status(result) != shaderc_compilation_status_success)
    log = shaderc_result_get_error_message(result);
  shaderc_result_release(result);
  shaderc_compile_options_release(options);
  shaderc_compiler_release(compiler);
  return log;
}

}  // namespace ember::test
