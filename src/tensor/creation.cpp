// Creation ops. Every one locks its device's settings first: the spec makes the first tensor
// fix the defaults, even when the tensor names its dtype explicitly.
#include "ember/tensor_ops.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/tensor_impl.h"

namespace ember::ops {
namespace {

using tensor::fail;

struct Target {
  std::shared_ptr<detail::DeviceContext> context;
  DeviceSettings settings;
};

/// The device's context, its settings now locked.
Target lock_target(const TensorCreationOptions& options) {
  auto context = detail::DeviceContext::of(options.device.as_dispatch());
  const DeviceSettings settings = context->lock_settings();
  return {std::move(context), settings};
}

/// options.dtype, which must be of kind, or the device's default for kind.
DType resolve_dtype(const TensorCreationOptions& options, TensorKind kind,
                    const DeviceSettings& settings, std::string_view op) {
  if (!options.dtype) return tensor::default_dtype(settings, kind);
  if (kind_of(*options.dtype) != kind) {
    fail(op, "dtype ", *options.dtype, " is not ", tensor::kind_phrase(kind), " dtype");
  }
  return *options.dtype;
}

TensorHandle make_full(const Shape& shape, Scalar value, const TensorCreationOptions& options,
                       TensorKind kind, std::string_view op) {
  const Target target = lock_target(options);
  const DType dtype = resolve_dtype(options, kind, target.settings, op);
  tensor::checked_num_elements(shape.dims(), op);
  tensor::check_exact_scalar(value, dtype, op);
  return tensor::run_on(ir::Full{shape, dtype, value}, options.device, target.context);
}

/// The dtype from_data gives data: options.dtype, else data's own when of kind, else kind's
/// default.
DType from_data_dtype(const TensorData& data, const TensorCreationOptions& options, TensorKind kind,
                      const DeviceSettings& settings) {
  if (options.dtype || kind_of(data.dtype()) != kind) {
    return resolve_dtype(options, kind, settings, "from_data");
  }
  return data.dtype();
}

}  // namespace

TensorHandle full(const Shape& shape, Scalar value, const TensorCreationOptions& options,
                  TensorKind kind) {
  return make_full(shape, value, options, kind, "full");
}

TensorHandle zeros(const Shape& shape, const TensorCreationOptions& options, TensorKind kind) {
  return make_full(shape, Scalar(0), options, kind, "zeros");
}

TensorHandle ones(const Shape& shape, const TensorCreationOptions& options, TensorKind kind) {
  return make_full(shape, Scalar(1), options, kind, "ones");
}

TensorHandle empty(const Shape& shape, const TensorCreationOptions& options, TensorKind kind) {
  return make_full(shape, Scalar(0), options, kind, "empty");
}

TensorHandle from_data(const TensorData& data, const TensorCreationOptions& options,
                       TensorKind kind) {
  const Target target = lock_target(options);
  const DType dtype = from_data_dtype(data, options, kind, target.settings);
  if (tensor::checked_num_elements(data.shape().dims(), "from_data") == 0) {
    // Nothing to upload: an empty tensor is made like zeros.
    return tensor::run_on(ir::Full{data.shape(), dtype, Scalar(0)}, options.device, target.context);
  }
  const ir::TensorMeta meta{data.shape(), dtype};
  const TensorData converted = dtype == data.dtype() ? TensorData() : data.convert(dtype);
  const TensorData& written = dtype == data.dtype() ? data : converted;
  backend::BufferPtr buffer = target.context->write(written);
  return detail::make_handle(options.device, target.context, meta, std::move(buffer),
                             detail::index_range_of(written));
}

TensorHandle random(const Shape& shape, const Distribution& distribution,
                    const TensorCreationOptions& options, TensorKind kind) {
  const Target target = lock_target(options);
  const DType dtype = resolve_dtype(options, kind, target.settings, "random");
  tensor::checked_num_elements(shape.dims(), "random");
  const ir::Random op{shape, dtype, distribution, target.context->next_random_key()};
  return tensor::run_on(op, options.device, target.context);
}

TensorHandle arange(int64_t start, int64_t end, int64_t step,
                    const TensorCreationOptions& options) {
  const Target target = lock_target(options);
  const DType dtype = resolve_dtype(options, TensorKind::Int, target.settings, "arange");
  return tensor::run_on(ir::Arange{start, end, step, dtype}, options.device, target.context);
}

TensorHandle eye(int64_t n, const TensorCreationOptions& options, TensorKind kind) {
  const Target target = lock_target(options);
  const DType dtype = resolve_dtype(options, kind, target.settings, "eye");
  if (n < 0) fail("eye", "size ", n, " must be >= 0");
  tensor::check_result_size(Shape{n, n}, dtype, "eye");
  // Row index i equals column index j exactly on the diagonal: [n, 1] == [n] broadcasts to n x n.
  const TensorHandle index =
      tensor::run_on(ir::Arange{0, n, 1, DType::I64}, options.device, target.context);
  return cast(equal(reshape(index, {n, 1}), index), dtype);
}

TensorHandle full_like(const TensorHandle& x, Scalar value) {
  const detail::TensorImpl& impl = tensor::impl_of(x, "full_like");
  tensor::check_exact_scalar(value, impl.meta.dtype, "full_like");
  return tensor::run_on(ir::Full{impl.meta.shape, impl.meta.dtype, value}, impl.device,
                        impl.context);
}

}  // namespace ember::ops
