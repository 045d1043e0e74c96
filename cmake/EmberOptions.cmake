# Build options. Every backend of DESIGN.md §3 has an option EMBER_BACKEND_<NAME>; only the
# implemented ones may be turned on.
option(EMBER_BUILD_TESTS "Build the test suite" ON)
option(EMBER_BUILD_TOOLS "Build the ember command" ON)
option(EMBER_BUILD_EXAMPLES "Build the examples" ON)
option(EMBER_BUILD_BENCH "Build the benchmarks" ON)
option(EMBER_WERROR "Treat warnings in ember's code as errors" ON)
option(EMBER_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(EMBER_BUILD_FUZZERS "Build the libFuzzer targets in tests/fuzz (clang; the fuzz preset)" OFF)
option(EMBER_UNITY_BUILD "Compile each target's files in batches (unity builds)" ON)
set(EMBER_TEST_SHARDS 0 CACHE STRING "Run each test binary as this many CTest tests (GoogleTest \
shards: every case once, one process per shard); 0: one CTest test (and process) per case")

set(EMBER_ALL_BACKENDS NDARRAY FLEX CPU CUDA ROCM VULKAN WGPU METAL WEBGPU LIBTORCH REMOTE CAPTURE)
set(EMBER_IMPLEMENTED_BACKENDS NDARRAY FLEX CPU CUDA VULKAN WGPU WEBGPU REMOTE LIBTORCH CAPTURE)
# Backends that are on where what they build on is found: cuda where the CUDA toolkit's headers
# (cuda.h, nvrtc.h, cublasLt.h; CUDAToolkit_ROOT names a toolkit) are. Its libraries are opened
# at run time, so the build needs no GPU and no driver.
find_package(CUDAToolkit QUIET)
set(EMBER_FOUND_CUDA OFF)
if(CUDAToolkit_FOUND)
  find_path(EMBER_CUBLASLT_INCLUDE_DIR cublasLt.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_path(EMBER_NVRTC_INCLUDE_DIR nvrtc.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(EMBER_CUBLASLT_INCLUDE_DIR AND EMBER_NVRTC_INCLUDE_DIR)
    set(EMBER_FOUND_CUDA ON)
  endif()
endif()
# remote where Cap'n Proto (libcapnp-dev, and the capnp compiler from capnproto) is: its protocol
# is written with it. Found piece by piece: CapnProtoConfig.cmake needs the C language to look
# for libatomic, which this C++ project does not enable.
find_program(EMBER_CAPNP_EXECUTABLE capnp)
find_program(EMBER_CAPNPC_CXX_EXECUTABLE capnpc-c++)
find_library(EMBER_CAPNP_LIBRARY capnp)
find_library(EMBER_KJ_LIBRARY kj)
# capnpc holds Cap'n Proto's text codec, which the graph text format writes ops with.
find_library(EMBER_CAPNPC_LIBRARY capnpc)
find_path(EMBER_CAPNP_INCLUDE_DIR capnp/message.h)
# TLS through OpenSSL (libssl-dev).
find_package(OpenSSL QUIET)
set(EMBER_FOUND_REMOTE OFF)
if(EMBER_CAPNP_EXECUTABLE AND EMBER_CAPNPC_CXX_EXECUTABLE AND EMBER_CAPNP_LIBRARY AND
   EMBER_KJ_LIBRARY AND EMBER_CAPNP_INCLUDE_DIR AND OPENSSL_FOUND)
  set(EMBER_FOUND_REMOTE ON)
endif()
# capture where the same is found and capnpc: its graphs' text writes each op as the remote
# protocol does (src/wire/op_text.h).
set(EMBER_FOUND_CAPTURE OFF)
if(EMBER_FOUND_REMOTE AND EMBER_CAPNPC_LIBRARY)
  set(EMBER_FOUND_CAPTURE ON)
endif()
# libtorch where find_package(Torch) finds a LibTorch (Debian's libtorch-dev, or the one Torch_DIR
# names: docs/backends/libtorch.md). Not looked for when the option is already OFF: Torch's config
# finds its own dependencies (Caffe2, protobuf, glog, CUDA), which a build without it needs not.
set(EMBER_FOUND_LIBTORCH OFF)
if(NOT DEFINED EMBER_BACKEND_LIBTORCH OR EMBER_BACKEND_LIBTORCH)
  find_package(Torch QUIET)
  if(Torch_FOUND)
    set(EMBER_FOUND_LIBTORCH ON)
  endif()
endif()
# vulkan where the Vulkan loader's headers and library (libvulkan-dev) and shaderc (libshaderc-dev,
# the GLSL compiler its kernels are compiled with at run time) are. A machine without a Vulkan
# driver still runs the build: the backend then finds no device.
# Note: Debian's libshaderc.so leaves glslang's and SPIRV-Tools' symbols undefined (and crashes
# when they come from the static libraries), so shaderc is linked statically, with the static
# glslang (glslang-dev) and SPIRV-Tools (spirv-tools) it is built on, in this order.
find_package(Vulkan QUIET)
find_path(EMBER_SHADERC_INCLUDE_DIR shaderc/shaderc.h)
set(EMBER_SHADERC_LIBRARIES "")
set(EMBER_FOUND_SHADERC ON)
foreach(library shaderc_combined glslang MachineIndependent GenericCodeGen OSDependent
    OGLCompiler SPIRV SPIRV-Tools-opt SPIRV-Tools HLSL)
  find_library(EMBER_SHADERC_${library}_LIBRARY NAMES lib${library}.a)
  if(EMBER_SHADERC_${library}_LIBRARY)
    list(APPEND EMBER_SHADERC_LIBRARIES ${EMBER_SHADERC_${library}_LIBRARY})
  else()
    set(EMBER_FOUND_SHADERC OFF)
  endif()
endforeach()
set(EMBER_FOUND_VULKAN OFF)
if(Vulkan_FOUND AND EMBER_SHADERC_INCLUDE_DIR AND EMBER_FOUND_SHADERC)
  set(EMBER_FOUND_VULKAN ON)
endif()
# wgpu where wgpu-native's library and headers are: scripts/install-deps extracts them from the
# PyPI wheel of wgpu (pinned) into the cache folder EMBER_WGPU_DIR names.
if(DEFINED ENV{XDG_CACHE_HOME})
  set(EMBER_WGPU_CACHE "$ENV{XDG_CACHE_HOME}")
else()
  set(EMBER_WGPU_CACHE "$ENV{HOME}/.cache")
endif()
set(EMBER_WGPU_DIR "${EMBER_WGPU_CACHE}/ember/wgpu-native-0.32.0/wgpu/resources" CACHE PATH
  "The folder of wgpu-native's webgpu.h, wgpu.h and libwgpu_native-release.so (scripts/install-deps)")
find_path(EMBER_WGPU_INCLUDE_DIR webgpu.h PATHS ${EMBER_WGPU_DIR} NO_DEFAULT_PATH)
find_library(EMBER_WGPU_LIBRARY NAMES wgpu_native-release PATHS ${EMBER_WGPU_DIR} NO_DEFAULT_PATH)
set(EMBER_FOUND_WGPU OFF)
if(EMBER_WGPU_INCLUDE_DIR AND EMBER_WGPU_LIBRARY)
  set(EMBER_FOUND_WGPU ON)
endif()
# webgpu (Device::webgpu) is the wgpu backend under the WebGPU name: on Linux, the WebGPU API is
# the one wgpu-native implements, so it follows wgpu (-DEMBER_BACKEND_WGPU=OFF turns both off).
set(EMBER_FOUND_WEBGPU ${EMBER_FOUND_WGPU})
if(DEFINED EMBER_BACKEND_WGPU AND NOT EMBER_BACKEND_WGPU)
  set(EMBER_FOUND_WEBGPU OFF)
endif()
set(EMBER_DETECTED_BACKENDS CUDA VULKAN WGPU WEBGPU REMOTE LIBTORCH CAPTURE)

foreach(backend IN LISTS EMBER_ALL_BACKENDS)
  if(backend IN_LIST EMBER_IMPLEMENTED_BACKENDS)
    if(backend IN_LIST EMBER_DETECTED_BACKENDS)
      option(EMBER_BACKEND_${backend} "Compile the ${backend} backend (default: where found)"
        ${EMBER_FOUND_${backend}})
    else()
      option(EMBER_BACKEND_${backend} "Compile the ${backend} backend" ON)
    endif()
  else()
    option(EMBER_BACKEND_${backend} "Compile the ${backend} backend (not implemented yet)" OFF)
    if(EMBER_BACKEND_${backend})
      message(FATAL_ERROR "EMBER_BACKEND_${backend}: this backend is not implemented yet")
    endif()
  endif()
endforeach()
