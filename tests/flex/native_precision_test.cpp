// Which reduced dtypes take oneDNN's native kernels: the rule for CPUs this machine is not (an
// injected feature set), the features read against the kernel's own flag list (/proc/cpuinfo),
// and the f32 conversion path for f16 wherever the CPU lacks AVX512-FP16, as on this machine.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "backends/flex/dnnl_conv.h"
#include "backends/flex/dnnl_matmul.h"
#include "backends/flex/native_precision.h"

namespace ember::flex::test {
namespace {

/// The flags of the first processor in /proc/cpuinfo: Linux's own reading of cpuid.
std::set<std::string> kernel_cpu_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string word; words >> word;)
      flags.insert(word);
    return flags;
  }
  return {};
}

TEST(FlexNativePrecision, EachReducedDtypeNeedsItsOwnInstructions) {
  const CpuFeatures none;
  const CpuFeatures bf16_only{.avx512_bf16 = true, .avx512_fp16 = false};
  const CpuFeatures fp16_host{.avx512_bf16 = true, .avx512_fp16 = true};  // Sapphire Rapids on
  EXPECT_FALSE(wants_native_kernels(DType::BF16, none));
  EXPECT_FALSE(wants_native_kernels(DType::F16, none));
  EXPECT_TRUE(wants_native_kernels(DType::BF16, bf16_only));
  EXPECT_FALSE(wants_native_kernels(DType::F16, bf16_only)) << "Zen 4: bf16 only";
  EXPECT_TRUE(wants_native_kernels(DType::BF16, fp16_host));
  EXPECT_TRUE(wants_native_kernels(DType::F16, fp16_host));
  for (const DType other : {DType::F32, DType::F64, DType::I32})
    EXPECT_FALSE(wants_native_kernels(other, fp16_host)) << other;
}

TEST(FlexNativePrecision, FeaturesAreTheKernelsCpuFlags) {
  const std::set<std::string> flags = kernel_cpu_flags();
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  EXPECT_EQ(cpu_features().avx512_bf16, flags.contains("avx512_bf16"));
  EXPECT_EQ(cpu_features().avx512_fp16, flags.contains("avx512_fp16"));
}

TEST(FlexNativePrecision, F16ConvertsToF32WithoutAvx512Fp16) {
  // Where the CPU has AVX512-FP16 the choice also depends on the oneDNN at hand (2.6 has no f16
  // CPU kernels), so only the other direction is certain.
  if (kernel_cpu_flags().contains("avx512_fp16")) {
    EXPECT_EQ(dnnl_matmul_native(DType::F16), dnnl_conv_takes(DType::F16));
    return;
  }
  EXPECT_FALSE(dnnl_matmul_native(DType::F16));
  EXPECT_FALSE(dnnl_conv_takes(DType::F16));
}

}  // namespace
}  // namespace ember::flex::test
