// The attention kernels' sources, run on the CPU without a GPU: each is compiled by the host's C++
// compiler against emulation/cuda_emulation.h (its inline-assembly helpers replaced by the
// emulation's: mma.sync, ldmatrix, cp.async as plain copies, cvt and ex2), loaded, and run over
// the grid the backend launches; the forward's output and log-sum-exp and the backward's dQ, dK
// and dV match a double-precision reference from the same rounded inputs. This checks the
// kernels' index arithmetic (fragment layouts, tiles, pipeline buffers, masks, causal blocks) in
// CI, which has no GPU; tests/cuda/fused_attention_test.cpp runs them on one.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/attention_kernels.h"
#include "emulation/half_bits.h"
#include "support/source_dir.h"

namespace ember::cuda {
namespace {

// The helpers of the kernels' sources written in inline assembly, and what replaces each.
struct Replacement {
  const char* name;
  const char* emulated;
};
const Replacement kReplacements[] = {
    {"ember_load_f16",
     "static inline float ember_load_f16(unsigned short h) {\n"
     "  return ember_emulation::half_to_float(h, false);\n}\n"},
    {"ember_store_f16",
     "static inline unsigned short ember_store_f16(float f) {\n"
     "  return ember_emulation::float_to_half(f, false);\n}\n"},
    {"ember_mma",
     "static inline void ember_mma(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned "
     "b1) "
     "{\n  ember_emulated_mma(c, a, b0, b1, std::strcmp(MMA_TYPE, \"bf16\") == 0);\n}\n"},
    {"ember_pack",
     "static inline unsigned ember_pack(float lo, float hi) {\n"
     "  const bool bf16 = std::strcmp(MMA_TYPE, \"bf16\") == 0;\n"
     "  return (unsigned)ember_emulation::float_to_half(lo, bf16) |\n"
     "         ((unsigned)ember_emulation::float_to_half(hi, bf16) << 16);\n}\n"},
    {"ember_exp2", "static inline float ember_exp2(float x) { return std::exp2(x); }\n"},
    {"ember_shared_address", ""},
    {"ember_copy_rows",
     "template <int WIDTH, int TILE>\n"
     "static inline void ember_copy_rows(x_t* tile, const x_t* x, long long first, long long r0,\n"
     "                                   long long n) {\n"
     "  for (int at = threadIdx.x; at < TILE * (WIDTH / 8); at += blockDim.x) {\n"
     "    const int j = at / (WIDTH / 8);\n"
     "    x_t* to = tile + j * (WIDTH + 8) + at % (WIDTH / 8) * 8;\n"
     "    if (r0 + j < n) std::memcpy(to, x + (first + r0 + j) * WIDTH + at % (WIDTH / 8) * 8, "
     "16);\n"
     "    else std::memset(to, 0, 16);\n  }\n}\n"},
    {"ember_copy_floats",
     "template <int TILE>\n"
     "static inline void ember_copy_floats(float* tile, const float* x, long long first,\n"
     "                                     long long r0, long long n) {\n"
     "  for (int j = threadIdx.x; j < TILE; j += blockDim.x)\n"
     "    tile[j] = r0 + j < n ? x[first + r0 + j] : 0.0f;\n}\n"},
    {"ember_commit_copies", "static inline void ember_commit_copies() {}\n"},
    {"ember_copies_wait", "template <int N>\nstatic inline void ember_copies_wait() {}\n"},
    {"ember_ldmatrix",
     "template <bool TRANSPOSED>\n"
     "static inline void ember_ldmatrix(unsigned (&r)[4], const x_t* row) {\n"
     "  ember_emulated_ldmatrix(r, row, TRANSPOSED);\n}\n"},
};

/// source with each helper of kReplacements that it defines (a `__device__ __forceinline__`
/// function, with its template line, up to the first closing brace at the start of a line)
/// replaced where it stood.
std::string emulated_source(std::string source) {
  for (const Replacement& r : kReplacements) {
    const std::string call = std::string(" ") + r.name + "(";
    const std::size_t name_at = source.find(call);
    if (name_at == std::string::npos) continue;
    std::size_t begin = source.rfind("__device__ __forceinline__", name_at);
    const std::size_t template_at = source.rfind("template <", begin);
    if (template_at != std::string::npos && source.find('\n', template_at) + 1 == begin) {
      begin = template_at;
    }
    const std::size_t end = source.find("\n}\n", name_at) + 3;
    source.replace(begin, end - begin, r.emulated);
  }
  return source;
}

/// The kernels of a source, compiled for the host and loaded.
class EmulatedKernels {
 public:
  EmulatedKernels(const std::string& source, const std::vector<std::string>& kernels,
                  const std::string& name) {
    dir_ = std::filesystem::temp_directory_path() /
           ("ember_emulation_" + std::to_string(getpid()) + "_" + name);
    std::filesystem::create_directories(dir_);
    const std::filesystem::path cpp = dir_ / "kernels.cpp";
    const std::filesystem::path library = dir_ / "kernels.so";
    const std::filesystem::path log_file = dir_ / "compiler.log";
    std::ofstream out(cpp);
    out << emulated_source(source);
    for (const std::string& kernel : kernels) {
      out << "extern \"C\" void emulated_" << kernel
          << "(unsigned blocks, unsigned threads, void* const* args) {\n"
          << "  ember_emulated_launch(" << kernel << ", blocks, threads, args);\n}\n";
    }
    out.close();
    const std::string header =
        ::ember::test::source_dir() + "/tests/cuda/emulation/cuda_emulation.h";
    const std::string command =
        std::string(EMBER_HOST_CXX) + " -std=c++20 -O1 -shared -fPIC -pthread -w -include " +
        header + " -o " + library.string() + " " + cpp.string() + " 2> " + log_file.string();
    if (std::system(command.c_str()) == 0) handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::ifstream log(log_file);
    log_.assign(std::istreambuf_iterator<char>(log), {});
  }
  ~EmulatedKernels() {
    if (handle_ != nullptr) dlclose(handle_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  EmulatedKernels(const EmulatedKernels&) = delete;
  EmulatedKernels& operator=(const EmulatedKernels&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& log() const { return log_; }

  /// Runs kernel over blocks of threads (args: a pointer to each argument, as cuLaunchKernel).
  void launch(const std::string& kernel, int64_t blocks, unsigned threads,
              std::vector<void*> args) const {
    using Launch = void (*)(unsigned, unsigned, void* const*);
    const auto run = reinterpret_cast<Launch>(dlsym(handle_, ("emulated_" + kernel).c_str()));
    ASSERT_NE(run, nullptr) << kernel;
    run(static_cast<unsigned>(blocks), threads, args.data());
  }

 private:
  std::filesystem::path dir_;
  void* handle_ = nullptr;
  std::string log_;
};

/// A configuration: the kernels' shape and the sizes of its inputs.
struct EmulatedCase {
  const char* name;
  DType dtype;
  int64_t l, s, e, ev;
  AttentionMask mask;
  bool causal;
};

/// x rounded to dtype (the kernels' input values), as a float.
float rounded(float x, DType dtype) {
  if (dtype == DType::F32) return x;
  const bool bf16 = dtype == DType::BF16;
  return ember_emulation::half_to_float(ember_emulation::float_to_half(x, bf16), bf16);
}

/// values as the kernels read them: f32, or bf16/f16 bits.
std::vector<uint8_t> stored(const std::vector<float>& values, DType dtype) {
  std::vector<uint8_t> bytes(values.size() * dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F32) {
      std::memcpy(&bytes[4 * i], &values[i], 4);
      continue;
    }
    const uint16_t h = ember_emulation::float_to_half(values[i], dtype == DType::BF16);
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  return bytes;
}

float loaded_value(const std::vector<uint8_t>& bytes, std::size_t i, DType dtype) {
  if (dtype == DType::F32) {
    float f;
    std::memcpy(&f, &bytes[4 * i], 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, &bytes[2 * i], 2);
  return ember_emulation::half_to_float(h, dtype == DType::BF16);
}

/// Attention of c's inputs in double: out, lse and the gradients of sum(out * g).
struct Reference {
  std::vector<double> out, lse, dq, dk, dv;
};

Reference reference(const EmulatedCase& c, int64_t batches, double scale,
                    const std::vector<float>& q, const std::vector<float>& k,
                    const std::vector<float>& v, const std::vector<float>& g,
                    const std::vector<uint8_t>& keep, const std::vector<float>& bias) {
  Reference r;
  r.out.assign(batches * c.l * c.ev, 0.0);
  r.lse.assign(batches * c.l, 0.0);
  r.dq.assign(batches * c.l * c.e, 0.0);
  r.dk.assign(batches * c.s * c.e, 0.0);
  r.dv.assign(batches * c.s * c.ev, 0.0);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < c.l; ++i) {
      std::vector<double> p(c.s, 0.0);
      double top = -INFINITY;
      for (int64_t j = 0; j < c.s; ++j) {
        double dot = 0.0;
        for (int64_t e = 0; e < c.e; ++e)
          dot += static_cast<double>(q[(b * c.l + i) * c.e + e]) * k[(b * c.s + j) * c.e + e];
        p[j] = dot * scale + (c.mask == AttentionMask::Float ? bias[i * c.s + j] : 0.0);
        if ((c.causal && j > i) || (c.mask == AttentionMask::Bool && keep[i * c.s + j] == 0)) {
          p[j] = -INFINITY;
        }
        top = std::max(top, p[j]);
      }
      double sum = 0.0;
      for (double& x : p) {
        x = x == -INFINITY ? 0.0 : std::exp(x - top);
        sum += x;
      }
      r.lse[b * c.l + i] = top + std::log(sum);
      double d = 0.0;
      for (int64_t col = 0; col < c.ev; ++col) {
        double o = 0.0;
        for (int64_t j = 0; j < c.s; ++j)
          o += p[j] / sum * v[(b * c.s + j) * c.ev + col];
        r.out[(b * c.l + i) * c.ev + col] = o;
        d += o * g[(b * c.l + i) * c.ev + col];
      }
      for (int64_t j = 0; j < c.s; ++j) {
        const double pj = p[j] / sum;
        double dp = 0.0;
        for (int64_t col = 0; col < c.ev; ++col) {
          dp += static_cast<double>(g[(b * c.l + i) * c.ev + col]) * v[(b * c.s + j) * c.ev + col];
          r.dv[(b * c.s + j) * c.ev + col] += pj * g[(b * c.l + i) * c.ev + col];
        }
        const double ds = pj * (dp - d) * scale;
        for (int64_t e = 0; e < c.e; ++e) {
          r.dq[(b * c.l + i) * c.e + e] += ds * k[(b * c.s + j) * c.e + e];
          r.dk[(b * c.s + j) * c.e + e] += ds * q[(b * c.l + i) * c.e + e];
        }
      }
    }
  }
  return r;
}

/// The largest |got - want| over the largest |want| (at least 1).
double relative_error(const std::vector<uint8_t>& got, const std::vector<double>& want,
                      DType dtype) {
  double worst = 0.0;
  double largest = 1.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    largest = std::max(largest, std::fabs(want[i]));
    const double error = std::fabs(loaded_value(got, i, dtype) - want[i]);
    worst = std::isnan(error) ? INFINITY : std::max(worst, error);
  }
  return worst / largest;
}

class AttentionEmulation : public ::testing::TestWithParam<EmulatedCase> {};

TEST_P(AttentionEmulation, KernelsMatchADoubleReference) {
  const EmulatedCase& c = GetParam();
  const int64_t batches = 2;
  AttentionShape shape{c.dtype, batches, c.e, c.ev, c.mask, c.causal, {}};
  AttentionParameters& p = shape.parameters;
  p.l = c.l;
  p.s = c.s;
  p.scale = 1.0 / std::sqrt(static_cast<double>(c.e));
  if (c.mask != AttentionMask::None) {  // one [L, S] mask shared by every batch entry
    p.mask_row_stride = c.s;
    p.mask_col_stride = 1;
  }
  std::mt19937 random(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto values = [&](int64_t n) {
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& value : x)
      value = rounded(normal(random), c.dtype);
    return x;
  };
  const std::vector<float> q = values(batches * c.l * c.e), k = values(batches * c.s * c.e),
                           v = values(batches * c.s * c.ev), g = values(batches * c.l * c.ev),
                           bias = values(c.l * c.s);
  std::vector<uint8_t> keep(static_cast<std::size_t>(c.l * c.s));
  for (uint8_t& x : keep)
    x = random() % 4 != 0;
  // Every row attends its own position at least (a row with none is NaN, on both sides).
  for (int64_t i = 0; i < std::min(c.l, c.s); ++i)
    keep[static_cast<std::size_t>(i * c.s + i)] = 1;
  const Reference want = reference(c, batches, p.scale, q, k, v, g, keep, bias);

  EmulatedKernels forward(attention_forward_source(shape), {"ember_attention_forward"},
                          std::string(c.name) + "_forward");
  EmulatedKernels backward(attention_backward_source(shape),
                           {"ember_attention_dq", "ember_attention_dkdv"},
                           std::string(c.name) + "_backward");
  ASSERT_TRUE(forward.loaded()) << forward.log();
  ASSERT_TRUE(backward.loaded()) << backward.log();
  std::vector<uint8_t> qb = stored(q, c.dtype), kb = stored(k, c.dtype), vb = stored(v, c.dtype),
                       gb = stored(g, c.dtype), biasb = stored(bias, c.dtype);
  const std::size_t size = dtype_size(c.dtype);
  std::vector<uint8_t> out(batches * c.l * c.ev * size), dq(batches * c.l * c.e * size),
      dk(batches * c.s * c.e * size), dv(batches * c.s * c.ev * size);
  std::vector<float> lse(batches * c.l), delta(batches * c.l);
  void* qp = qb.data();
  void* kp = kb.data();
  void* vp = vb.data();
  void* mask = c.mask == AttentionMask::Bool    ? static_cast<void*>(keep.data())
               : c.mask == AttentionMask::Float ? static_cast<void*>(biasb.data())
                                                : nullptr;
  void* outp = out.data();
  void* lsep = lse.data();
  void* gp = gb.data();
  void* dqp = dq.data();
  void* dkp = dk.data();
  void* dvp = dv.data();
  void* deltap = delta.data();
  const auto blocks = [&](int64_t rows, AttentionGrid grid) {
    return batches * ((rows + grid.rows - 1) / grid.rows);
  };
  const AttentionGrid fgrid = attention_forward_grid(shape);
  forward.launch("ember_attention_forward", blocks(c.l, fgrid), fgrid.threads,
                 {&qp, &kp, &vp, &mask, &outp, &lsep, &p});
  const AttentionGrid bgrid = attention_backward_grid(shape);
  backward.launch("ember_attention_dq", blocks(c.l, bgrid), bgrid.threads,
                  {&qp, &kp, &vp, &mask, &outp, &lsep, &gp, &dqp, &deltap, &p});
  backward.launch("ember_attention_dkdv", blocks(c.s, bgrid), bgrid.threads,
                  {&qp, &kp, &vp, &mask, &lsep, &gp, &deltap, &dkp, &dvp, &p});

  // The kernels round the result (and P, dS on tensor cores) to the dtype once; f32 sums in
  // another order.
  const double tolerance = c.dtype == DType::F32 ? 1e-5 : c.dtype == DType::F16 ? 5e-3 : 3e-2;
  EXPECT_LE(relative_error(out, want.out, c.dtype), tolerance) << "out";
  double lse_error = 0.0;
  for (std::size_t i = 0; i < lse.size(); ++i)
    lse_error = std::max(lse_error, std::fabs(lse[i] - want.lse[i]));
  EXPECT_LE(lse_error, 1e-4) << "lse";
  EXPECT_LE(relative_error(dq, want.dq, c.dtype), tolerance) << "dq";
  EXPECT_LE(relative_error(dk, want.dk, c.dtype), tolerance) << "dk";
  EXPECT_LE(relative_error(dv, want.dv, c.dtype), tolerance) << "dv";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AttentionEmulation,
    ::testing::Values(
        EmulatedCase{"bf16_head64", DType::BF16, 200, 150, 64, 64, AttentionMask::None, false},
        EmulatedCase{"bf16_causal_bool_mask", DType::BF16, 150, 150, 64, 64, AttentionMask::Bool,
                     true},
        EmulatedCase{"f16_float_mask", DType::F16, 100, 70, 32, 48, AttentionMask::Float, false},
        EmulatedCase{"bf16_head128", DType::BF16, 70, 90, 128, 128, AttentionMask::None, false},
        EmulatedCase{"f32_tiled_causal", DType::F32, 130, 100, 48, 40, AttentionMask::None, true}),
    [](const ::testing::TestParamInfo<EmulatedCase>& info) { return info.param.name; });

}  // namespace
}  // namespace ember::cuda
