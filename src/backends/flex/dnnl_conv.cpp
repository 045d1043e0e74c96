// oneDNN's convolution primitives on flex's contiguous f32, bf16 or f16 tensors (dnnl_conv.h).
// Plain (row-major NC*) memory is handed to oneDNN as it is; each primitive chooses its own
// layouts (format any) and the tensors are reordered into and out of them, as PyTorch does.
// Primitives are cached per thread by their shapes, dtype and geometry, since creating one costs
// far more than a small convolution. A bf16/f16 weight gradient is summed in f32 (oneDNN's
// diff_weights, and the slices' sum) and rounded once. Parallelism comes from flex's pool (the
// batch split into slices, each a single-threaded oneDNN call), never from oneDNN's OpenMP threads
// (run_split says why).
#include "backends/flex/dnnl_conv.h"

#ifdef EMBER_WITH_DNNL

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <unordered_map>
#include <vector>

#include "backends/flex/dnnl_context.h"
#include "backends/flex/one_openmp_thread.h"
#include "backends/flex/thread_pool.h"
#include "ember/error.h"
#include "ember/tensor_data.h"

namespace ember::flex {
namespace {

using dnnl::memory;
using Dims = memory::dims;

enum class Primitive : int64_t { Forward, BackwardData, BackwardWeights };

/// A convolution in oneDNN's terms: src [N, IC, *in] -> dst [N, OC, *out], weights
/// [OC, IC / groups, *kernel], every tensor of one dtype (a weight gradient: f32).
struct ConvProblem {
  Dims src, weights, dst;
  Dims strides, dilates, padding_l, padding_r;
  int64_t groups = 1;
  bool bias = false;
  DType dtype = DType::F32;
};

ConvProblem make_problem(const ir::ConvGeometry& g, const Shape& src, const Shape& weights,
                         const Shape& dst, bool bias, DType dtype) {
  ConvProblem p;
  p.dtype = dtype;
  p.src = src.dims();
  p.weights = weights.dims();
  p.dst = dst.dims();
  p.groups = g.groups;
  p.bias = bias;
  for (std::size_t d = 0; d + 2 < src.rank(); ++d) {
    const int64_t extent = (weights[2 + d] - 1) * g.dilation[d] + 1;
    // The right padding that makes oneDNN's exact size rule hold; any value up to stride - 1
    // larger gives the same windows, so a negative one (the last input cells unused) becomes 0.
    const int64_t right = (dst[2 + d] - 1) * g.stride[d] + extent - src[2 + d] - g.padding[d];
    p.strides.push_back(g.stride[d]);
    p.dilates.push_back(g.dilation[d] - 1);
    p.padding_l.push_back(g.padding[d]);
    p.padding_r.push_back(std::max<int64_t>(right, 0));
  }
  if (g.groups > 1) {  // [OC, IC/g, *k] as [g, OC/g, IC/g, *k]: the same memory
    p.weights[0] /= g.groups;
    p.weights.insert(p.weights.begin(), g.groups);
  }
  return p;
}

memory::format_tag plain_tag(std::size_t rank) {
  using tag = memory::format_tag;
  switch (rank) {
    case 1:
      return tag::a;
    case 3:
      return tag::abc;
    case 4:
      return tag::abcd;
    case 5:
      return tag::abcde;
    default:
      return tag::abcdef;
  }
}

memory::desc plain_desc(const Dims& dims, memory::data_type type) {
  return {dims, type, plain_tag(dims.size())};
}
memory::desc any_desc(const Dims& dims, DType dtype) {
  return {dims, dnnl_type(dtype), memory::format_tag::any};
}

DnnlContext& context() {
  return dnnl_context();
}

dnnl::convolution_forward::primitive_desc forward_desc(const ConvProblem& p) {
  const auto bias = p.bias ? any_desc({p.dst[1]}, p.dtype) : memory::desc();
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
      any_desc(p.src, p.dtype), any_desc(p.weights, p.dtype), bias, any_desc(p.dst, p.dtype),
      p.strides, p.dilates, p.padding_l, p.padding_r);
  return {desc, context().engine};
}

/// A primitive with the layouts it wants for its three tensors (src-like, weights, dst-like:
/// in the order of the argument ids of Kind), and whether its implementation is oneDNN's reference
/// loops.
struct Prepared {
  dnnl::primitive primitive;
  memory::desc first, weights, last;
  bool reference = false;
};

Prepared prepare(Primitive kind, const ConvProblem& p) {
  const auto hint = forward_desc(p);
  const auto algorithm = dnnl::algorithm::convolution_direct;
  const dnnl::engine& engine = context().engine;
  switch (kind) {
    case Primitive::Forward:
      return {dnnl::convolution_forward(hint), hint.src_desc(), hint.weights_desc(),
              hint.dst_desc(), is_reference_impl(hint.impl_info_str())};
    case Primitive::BackwardData: {
      const dnnl::convolution_backward_data::primitive_desc pd(
          {algorithm, any_desc(p.src, p.dtype), any_desc(p.weights, p.dtype),
           any_desc(p.dst, p.dtype), p.strides, p.dilates, p.padding_l, p.padding_r},
          engine, hint);
      return {dnnl::convolution_backward_data(pd), pd.diff_src_desc(), pd.weights_desc(),
              pd.diff_dst_desc(), is_reference_impl(pd.impl_info_str())};
    }
    case Primitive::BackwardWeights: {
      // The gradient in f32 whatever the operands' dtype: the slices' sum rounds once.
      const dnnl::convolution_backward_weights::primitive_desc pd(
          {algorithm, any_desc(p.src, p.dtype), any_desc(p.weights, DType::F32),
           any_desc(p.dst, p.dtype), p.strides, p.dilates, p.padding_l, p.padding_r},
          engine, hint);
      return {dnnl::convolution_backward_weights(pd), pd.src_desc(), pd.diff_weights_desc(),
              pd.diff_dst_desc(), is_reference_impl(pd.impl_info_str())};
    }
  }
  return {};
}

/// The key of a problem in the per-thread cache: every number that shapes the primitive.
std::vector<int64_t> cache_key(Primitive kind, const ConvProblem& p) {
  std::vector<int64_t> key{static_cast<int64_t>(kind), p.groups, p.bias ? 1 : 0,
                           static_cast<int64_t>(p.dtype)};
  for (const Dims* dims :
       {&p.src, &p.weights, &p.dst, &p.strides, &p.dilates, &p.padding_l, &p.padding_r}) {
    key.push_back(static_cast<int64_t>(dims->size()));
    key.insert(key.end(), dims->begin(), dims->end());
  }
  return key;
}

/// The cached primitive of a problem; nullptr when oneDNN has no implementation for it, or for
/// bf16/f16 only a reference one (converting to f32 is faster).
const Prepared* prepared(Primitive kind, const ConvProblem& p) {
  return dnnl_cached<Prepared>(cache_key(kind, p), [&]() -> std::optional<Prepared> {
    try {
      Prepared made = prepare(kind, p);
      if (p.dtype != DType::F32 && made.reference) return std::nullopt;
      return made;
    } catch (const dnnl::error&) {  // unimplemented: leave the case to im2col
      return std::nullopt;
    }
  });
}

/// A tensor handed to a primitive in the layout it wants: the caller's plain memory itself when
/// the layouts agree, else a copy of it (an input) or a buffer copied back after (an output).
class Operand {
 public:
  /// data is plain memory of wanted's dtype.
  Operand(const memory::desc& wanted, const Dims& dims, const void* data)
      : user_(plain_desc(dims, wanted.data_type()), context().engine, const_cast<void*>(data)),
        inner_(wanted == user_.get_desc() ? user_ : memory(wanted, context().engine)) {}

  /// An input: copied into the wanted layout when it differs.
  memory read() {
    if (inner_ != user_) dnnl::reorder(user_, inner_).execute(context().stream, user_, inner_);
    return inner_;
  }
  memory written() const { return inner_; }
  /// An output: copied back into the caller's memory when the layouts differ.
  void write_back() {
    if (inner_ != user_) dnnl::reorder(inner_, user_).execute(context().stream, inner_, user_);
  }

 private:
  memory user_;
  memory inner_;
};

/// Runs a prepared primitive with its three operands (outputs written back) and bias.
void execute(const Prepared& prepared, Primitive kind, Operand& first, Operand& weights,
             Operand& last, const void* bias, const ConvProblem& p) {
  std::unordered_map<int, memory> args;
  switch (kind) {
    case Primitive::Forward:
      args = {{DNNL_ARG_SRC, first.read()},
              {DNNL_ARG_WEIGHTS, weights.read()},
              {DNNL_ARG_DST, last.written()}};
      if (bias) {
        args[DNNL_ARG_BIAS] = memory(plain_desc({p.dst[1]}, dnnl_type(p.dtype)), context().engine,
                                     const_cast<void*>(bias));
      }
      break;
    case Primitive::BackwardData:
      args = {{DNNL_ARG_DIFF_DST, last.read()},
              {DNNL_ARG_WEIGHTS, weights.read()},
              {DNNL_ARG_DIFF_SRC, first.written()}};
      break;
    case Primitive::BackwardWeights:
      args = {{DNNL_ARG_SRC, first.read()},
              {DNNL_ARG_DIFF_DST, last.read()},
              {DNNL_ARG_DIFF_WEIGHTS, weights.written()}};
      break;
  }
  prepared.primitive.execute(context().stream, args);
  if (kind == Primitive::Forward) last.write_back();
  if (kind == Primitive::BackwardData) first.write_back();
  if (kind == Primitive::BackwardWeights) weights.write_back();
  context().stream.wait();
}

/// The three plain tensors of a problem (src-like, weights, dst-like) and the bias: of the
/// problem's dtype, but for a weight gradient's f32 weights.
struct Tensors {
  const std::byte* first;
  const std::byte* weights;
  const std::byte* last;
  const void* bias = nullptr;
};

/// Runs the problem on the calling thread (run_split has checked that oneDNN takes its shape).
void run_here(Primitive kind, const ConvProblem& p, const Tensors& t) {
  const OneOpenMpThread one_thread;  // before the primitive is made: it keeps the thread count
  const Prepared* prep = prepared(kind, p);
  if (!prep)
    throw ExecutionError("[conv] oneDNN declined a shape it had accepted on another thread");
  Operand first(prep->first, p.src, t.first);
  Operand weights(prep->weights, p.weights, t.weights);
  Operand last(prep->last, p.dst, t.last);
  execute(*prep, kind, first, weights, last, t.bias, p);
}

/// The problem restricted to samples [begin, end) of the batch.
ConvProblem samples(ConvProblem p, int64_t begin, int64_t end) {
  p.src[0] = end - begin;
  p.dst[0] = end - begin;
  return p;
}

/// Elements of one sample of a plain [N, C, ...] tensor.
int64_t sample_size(const Dims& dims) {
  int64_t size = 1;
  for (std::size_t d = 1; d < dims.size(); ++d)
    size *= dims[d];
  return size;
}

/// Splits the batch into one slice per pool thread, each a oneDNN call of its own on one OpenMP
/// thread: oneDNN's OpenMP workers would otherwise spin beside the pool's after every call and
/// halve the speed of whatever runs next. Backward weights sums the slices' gradients. False,
/// with nothing written, when oneDNN declines a slice's shape.
bool run_split(Primitive kind, const ConvProblem& p, const Tensors& t) {
  const int64_t batch = p.src[0];
  const int64_t slices = std::min<int64_t>(batch, ThreadPool::instance().threads());
  const OneOpenMpThread one_thread;
  const auto first_sample = [&](int64_t slice) { return batch * slice / slices; };
  for (const int64_t size : {first_sample(1), batch - first_sample(slices - 1)}) {
    if (!prepared(kind, samples(p, 0, size))) return false;
  }
  const bool sums = kind == Primitive::BackwardWeights;
  const int64_t weight_size = sums ? sample_size(p.weights) * p.weights[0] : 0;
  std::vector<float> partial(static_cast<std::size_t>((slices - 1) * weight_size));
  const auto element = static_cast<int64_t>(dtype_size(p.dtype));
  parallel_for(slices, 1, [&](int64_t begin, int64_t end) {
    for (int64_t slice = begin; slice < end; ++slice) {
      const int64_t from = first_sample(slice);
      const int64_t to = first_sample(slice + 1);
      Tensors part = t;
      part.first += from * sample_size(p.src) * element;
      part.last += from * sample_size(p.dst) * element;
      if (sums && slice > 0) {
        part.weights =
            reinterpret_cast<const std::byte*>(partial.data() + (slice - 1) * weight_size);
      }
      run_here(kind, samples(p, from, to), part);
    }
  });
  auto* total = reinterpret_cast<float*>(const_cast<std::byte*>(t.weights));
  for (int64_t slice = 1; sums && slice < slices; ++slice) {
    const float* add = partial.data() + (slice - 1) * weight_size;
    for (int64_t i = 0; i < weight_size; ++i)
      total[i] += add[i];
  }
  return true;
}

/// Adds bias[c] to every element of channel c of out [N, C, volume].
void add_bias(float* out, const float* bias, const Shape& shape) {
  const int64_t channels = shape[1];
  const int64_t volume = shape.num_elements() / (shape[0] * channels);
  for (int64_t n = 0; n < shape[0]; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      float* row = out + (n * channels + c) * volume;
      for (int64_t i = 0; i < volume; ++i)
        row[i] += bias[c];
    }
  }
}

/// values rounded once to dtype (bf16 or f16), written to out.
void round_into(const std::vector<float>& values, DType dtype, void* out) {
  visit_dtype(dtype, [&]<typename T>() {
    T* to = static_cast<T*>(out);
    for (std::size_t i = 0; i < values.size(); ++i)
      to[i] = detail::convert_element<T>(values[i]);
  });
}

}  // namespace

bool dnnl_in_build() {
  return true;
}

bool dnnl_conv_takes(DType dtype) {
  return dtype == DType::F32 || dnnl_native(dtype);
}

bool dnnl_convolve(const ir::ConvGeometry& geometry, const View& x, const View& weight,
                   const View* bias, void* out, const Shape& out_shape) {
  const bool transposed = geometry.transposed;
  // A transposed convolution's bias is added after oneDNN's product, which a bf16/f16 output
  // would round twice: such a case is left to the f32 path.
  if (!dnnl_conv_takes(x.dtype) || (transposed && bias && x.dtype != DType::F32)) return false;
  // A transposed convolution is the input gradient of the convolution from out to x.
  const Shape& src = transposed ? out_shape : x.shape;
  const Shape& dst = transposed ? x.shape : out_shape;
  const ConvProblem p =
      make_problem(geometry, src, weight.shape, dst, bias && !transposed, x.dtype);
  auto* out_bytes = static_cast<std::byte*>(out);
  const Tensors tensors{transposed ? out_bytes : x.bytes(), weight.bytes(),
                        transposed ? x.bytes() : out_bytes,
                        bias && !transposed ? bias->bytes() : nullptr};
  if (!run_split(transposed ? Primitive::BackwardData : Primitive::Forward, p, tensors))
    return false;
  if (transposed && bias) add_bias(static_cast<float*>(out), bias->data<float>(), out_shape);
  return true;
}

bool dnnl_weight_gradient(const ir::ConvGeometry& geometry, const View& x, const View& grad_output,
                          void* grad_weight, const Shape& weight_shape) {
  if (!dnnl_conv_takes(x.dtype)) return false;
  // Of a transposed convolution, the weight gradient of the convolution from grad_output to x.
  const View& src = geometry.transposed ? grad_output : x;
  const View& dst = geometry.transposed ? x : grad_output;
  const ConvProblem p = make_problem(geometry, src.shape, weight_shape, dst.shape, false, x.dtype);
  if (x.dtype == DType::F32) {
    return run_split(Primitive::BackwardWeights, p,
                     {src.bytes(), static_cast<std::byte*>(grad_weight), dst.bytes()});
  }
  std::vector<float> total(static_cast<std::size_t>(weight_shape.num_elements()));
  if (!run_split(Primitive::BackwardWeights, p,
                 {src.bytes(), reinterpret_cast<std::byte*>(total.data()), dst.bytes()}))
    return false;
  round_into(total, x.dtype, grad_weight);
  return true;
}

}  // namespace ember::flex

#else  // no oneDNN in this build: every case goes to im2col

namespace ember::flex {

bool dnnl_in_build() {
  return false;
}
bool dnnl_conv_takes(DType) {
  return false;
}
bool dnnl_convolve(const ir::ConvGeometry&, const View&, const View&, const View*, void*,
                   const Shape&) {
  return false;
}
bool dnnl_weight_gradient(const ir::ConvGeometry&, const View&, const View&, void*, const Shape&) {
  return false;
}

}  // namespace ember::flex

#endif
