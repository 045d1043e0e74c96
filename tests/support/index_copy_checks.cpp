#include "support/index_copy_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/shader/host_runs.h"
#include "backends/shader/index_copy.h"
#include "ember/error.h"
#include "ember/slice.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"
#include "support/same_bits.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

/// The dtypes of the checks: every one but bf16, which no shader device computes.
std::vector<DType> dtypes_of(const Device& device) {
  std::vector<DType> dtypes;
  for (const DType dtype : kAllDTypes)
    if (dtype != DType::BF16 && device.supports_dtype(dtype)) dtypes.push_back(dtype);
  return dtypes;
}

/// Distinct-ish values of shape in dtype on device, of both signs where the dtype has them; a
/// float tensor of more than three elements holds NaN, inf and -inf (bits the copies keep).
TensorHandle pattern(const Shape& shape, DType dtype, const Device& device, int seed) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto v = static_cast<double>((i * 7 + static_cast<std::size_t>(seed) * 13) % 23);
    values[i] = dtype == DType::Bool ? std::fmod(v, 2.0) : is_unsigned_int(dtype) ? v : v - 11.0;
  }
  if (is_float(dtype) && values.size() > 3) {
    values[1] = std::numeric_limits<double>::quiet_NaN();
    values[2] = std::numeric_limits<double>::infinity();
    values[3] = -std::numeric_limits<double>::infinity();
  }
  return ops::from_data(TensorData(values, shape, dtype),
                        TensorCreationOptions(device).with_dtype(dtype), kind_of(dtype));
}

/// Index values on device in index_dtype.
TensorHandle index_tensor(const std::vector<int64_t>& values, const Shape& shape, DType index_dtype,
                          const Device& device) {
  return ops::from_data(TensorData(values, shape, index_dtype),
                        TensorCreationOptions(device).with_dtype(index_dtype), TensorKind::Int);
}

/// make(device) on device and on ndarray: the same bits (any NaN as any NaN: a GPU's adds return
/// their own NaN); run by device's kernels when on_device
/// (counted by shader::index_copy_dispatches), else on its host path (not counted).
void expect_same(const std::string& what, const Device& device, bool on_device,
                 const std::function<TensorHandle(const Device&)>& make) {
  const TensorData expected = ops::into_data(make(Device::ndarray()));
  const uint64_t before = shader::index_copy_dispatches().load();
  const TensorData actual = ops::into_data(make(device));
  EXPECT_TRUE(same_bits_or_both_nan(actual, expected)) << what;
  const uint64_t after = shader::index_copy_dispatches().load();
  if (on_device) {
    EXPECT_GT(after, before) << what << ": on the host";
  } else {
    EXPECT_EQ(after, before) << what << ": on the device";
  }
}

/// Values of full that dtype holds, each converted its own way: floats rounded (0.1 in f16 and
/// f32, 2^40 + 1 in f32, 1e10 to f16's infinity), NaN; an integer dtype's largest value (both
/// words of an 8-byte one), a negative one, an integral float, a bool.
std::vector<Scalar> full_values(DType dtype) {
  if (is_float(dtype))
    return {Scalar(0.1),
            Scalar(-2.7),
            Scalar((int64_t{1} << 40) + 1),
            Scalar(1e10),
            Scalar(std::numeric_limits<double>::quiet_NaN()),
            Scalar(true)};
  if (dtype == DType::Bool) return {Scalar(false), Scalar(true), Scalar(1.0), Scalar(int64_t{0})};
  const int bits = static_cast<int>(8 * dtype_size(dtype)) - (is_unsigned_int(dtype) ? 0 : 1);
  const int64_t largest = bits >= 63 ? std::numeric_limits<int64_t>::max()
                                     : static_cast<int64_t>((uint64_t{1} << bits) - 1);
  std::vector<Scalar> values = {Scalar(largest), Scalar(100.0), Scalar(true)};
  if (!is_unsigned_int(dtype)) values.push_back(Scalar(int64_t{-3}));
  return values;
}

/// full of full_values over 3 x 37 elements (odd: 1- and 2-byte elements share their last word)
/// and over one: ndarray's bits, by the Fill kernel alone (no host run).
void check_full(const Device& device, DType dtype) {
  const std::string name(dtype_name(dtype));
  const uint64_t host_runs = shader::HostRuns::counts_so_far()["full"];
  for (const Scalar& value : full_values(dtype)) {
    for (const Shape& shape : {Shape{3, 37}, Shape{1}}) {
      expect_same("full " + name + " of " + std::to_string(value.as_double()), device, true,
                  [&](const Device& d) {
                    return ops::full(shape, value, TensorCreationOptions(d).with_dtype(dtype),
                                     kind_of(dtype));
                  });
    }
  }
  EXPECT_EQ(shader::HostRuns::counts_so_far()["full"], host_runs) << "full " << name << ": host";
}

void check_full_cat_slice_assign(const Device& device, DType dtype) {
  const std::string name(dtype_name(dtype));
  check_full(device, dtype);
  for (int64_t dim = 0; dim < 3; ++dim) {
    expect_same("cat dim " + std::to_string(dim) + " " + name, device, true, [&](const Device& d) {
      std::vector<int64_t> a = {3, 5, 7}, empty = a, c = a;
      a[static_cast<std::size_t>(dim)] = 2;
      empty[static_cast<std::size_t>(dim)] = 0;
      return ops::cat({pattern(Shape(a), dtype, d, 1), pattern(Shape(empty), dtype, d, 2),
                       pattern(Shape(c), dtype, d, 3)},
                      dim);
    });
  }
  expect_same("slice_assign stepped " + name, device, true, [&](const Device& d) {
    return ops::slice_assign(pattern(Shape{4, 7, 5}, dtype, d, 1),
                             {Slice(1, 4), Slice(0, 7, 3), Slice(1, 5, 2)},
                             pattern(Shape{3, 3, 2}, dtype, d, 2));
  });
}

/// Rising and falling ranges of an integer dtype (odd lengths); past 32 bits (i64) on the host.
void check_arange(const Device& device, DType dtype) {
  struct Case {
    int64_t start, end, step;
    bool on_device;
  };
  const bool sign = !is_unsigned_int(dtype);
  const Case cases[] = {{sign ? -5 : 0, 37, 3, true},
                        {sign ? -7 : 120, sign ? -120 : 1, -4, true},
                        {int64_t{1} << 40, (int64_t{1} << 40) + 10, 3, false}};
  for (const Case& c : cases) {
    if (!c.on_device && dtype != DType::I64) continue;  // fits only i64
    expect_same("arange " + std::to_string(c.start) + ".." + std::to_string(c.end) + " " +
                    std::string(dtype_name(dtype)),
                device, c.on_device, [&](const Device& d) {
                  return ops::arange(c.start, c.end, c.step,
                                     TensorCreationOptions(d).with_dtype(dtype));
                });
  }
}

void check_indexing(const Device& device, DType dtype, DType index_dtype) {
  const std::string name =
      std::string(dtype_name(dtype)) + " by " + std::string(dtype_name(index_dtype));
  const Shape x{3, 4, 5};
  // The kernels add on f32, i32 and u32; other dtypes' sums run on the host.
  const bool adds = dtype == DType::F32 || dtype == DType::I32 || dtype == DType::U32;
  for (int64_t dim = 0; dim < 3; ++dim) {
    const std::string at = " dim " + std::to_string(dim) + " " + name;
    const std::vector<int64_t> picks = {2, 0, 2, 1, 2};  // duplicates, each below 3
    std::vector<int64_t> values_dims = x.dims();
    values_dims[static_cast<std::size_t>(dim)] = 5;
    const Shape values(values_dims);
    std::vector<int64_t> spread(static_cast<std::size_t>(values.num_elements()));
    for (std::size_t i = 0; i < spread.size(); ++i)
      spread[i] = static_cast<int64_t>((i * 5) % 3);
    expect_same("select" + at, device, true, [&](const Device& d) {
      return ops::select(pattern(x, dtype, d, 1), dim,
                         index_tensor(picks, Shape{5}, index_dtype, d));
    });
    expect_same("gather" + at, device, true, [&](const Device& d) {
      return ops::gather(pattern(x, dtype, d, 1), dim,
                         index_tensor(spread, values, index_dtype, d));
    });
    for (const ir::IndexUpdate update : {ir::IndexUpdate::Add, ir::IndexUpdate::Assign}) {
      const bool counted = adds || update == ir::IndexUpdate::Assign;
      const std::string how = update == ir::IndexUpdate::Add ? " add" : " assign";
      expect_same("select_assign" + how + at, device, counted, [&](const Device& d) {
        return tensor::run_one(
            ir::SelectAssign{dim, update},
            {pattern(x, dtype, d, 1), index_tensor(picks, Shape{5}, index_dtype, d),
             pattern(values, dtype, d, 2)});
      });
      expect_same("scatter" + how + at, device, counted, [&](const Device& d) {
        return tensor::run_one(
            ir::Scatter{dim, update},
            {pattern(x, dtype, d, 1), index_tensor(spread, values, index_dtype, d),
             pattern(values, dtype, d, 2)});
      });
    }
  }
}

/// The running sum, product, maximum and minimum along each dim of an odd shape, lanes of 4000
/// elements (past a workgroup: one invocation runs along each), long lanes (past 4096: blocks,
/// carries, blocks again) of 5000 and 70000 elements and six of 4500 along a middle dim; counted
/// where the kernel takes the op: maximum and minimum of f32, i32, u32 (and f64), sums and products
/// of i32 and u32, of floats on a device with doubles (ndarray accumulates them in double). The
/// pattern's small integers add and multiply exactly in double in any order, so even the long
/// lanes' float sums are ndarray's bits.
void check_cumulative(const Device& device, DType dtype, bool doubles) {
  using ir::CumulativeOp;
  const bool word = dtype == DType::I32 || dtype == DType::U32;
  const bool floats = dtype == DType::F32 || (dtype == DType::F64 && doubles);
  for (const CumulativeOp op :
       {CumulativeOp::Sum, CumulativeOp::Prod, CumulativeOp::Max, CumulativeOp::Min}) {
    const bool total = op == CumulativeOp::Sum || op == CumulativeOp::Prod;
    const bool counted = word || (floats && (!total || doubles));
    for (const Shape& shape :
         {Shape{3, 5, 7}, Shape{2, 4000}, Shape{5000}, Shape{70000}, Shape{3, 4500, 2}}) {
      for (int64_t dim = 0; dim < static_cast<int64_t>(shape.rank()); ++dim) {
        expect_same(
            "cumulative " + std::to_string(static_cast<int>(op)) + " dim " + std::to_string(dim) +
                " of " + std::to_string(shape.num_elements()) + " " +
                std::string(dtype_name(dtype)),
            device, counted, [&](const Device& d) {
              return tensor::run_one(ir::Cumulative{op, dim}, {pattern(shape, dtype, d, 4)});
            });
      }
    }
  }
}

/// The message of make(device)'s InvalidArgument, or why there was none.
std::string error_of(const std::function<TensorHandle(const Device&)>& make, const Device& device) {
  try {
    ops::into_data(make(device));
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

void expect_index_copies_match_ndarray(const Device& device, bool doubles) {
  for (const DType dtype : dtypes_of(device)) {
    if (dtype != DType::Bool) check_cumulative(device, dtype, doubles);
    check_full_cat_slice_assign(device, dtype);
    if (kind_of(dtype) == TensorKind::Int) check_arange(device, dtype);
    for (const DType index_dtype : {DType::I32, DType::I64})
      check_indexing(device, dtype, index_dtype);
  }
}

void expect_sparse_updates_of_a_large_table_on_the_device(const Device& device) {
  constexpr int64_t kRows = 100000;
  constexpr int64_t kWidth = 16;
  std::vector<int64_t> picks;
  for (int64_t k = 0; k < 64; ++k)
    picks.push_back((k * 7919) % (k % 3 == 0 ? 5 : kRows));  // rows 0-4 again and again
  const Shape lane{static_cast<int64_t>(picks.size())};
  for (const int64_t dim : {int64_t{0}, int64_t{1}}) {
    const Shape table = dim == 0 ? Shape{kRows, kWidth} : Shape{kWidth, kRows};
    const Shape values = dim == 0 ? Shape{lane[0], kWidth} : Shape{kWidth, lane[0]};
    for (const DType index_dtype : {DType::I32, DType::I64})
      expect_same("select_assign add into a table, dim " + std::to_string(dim), device, true,
                  [&](const Device& d) {
                    return ops::select_assign(pattern(table, DType::F32, d, 1), dim,
                                              index_tensor(picks, lane, index_dtype, d),
                                              pattern(values, DType::F32, d, 2));
                  });
  }
}

void expect_indices_from_the_host_are_not_checked_again(const Device& device) {
  const Shape x{6, 5};
  const auto dispatches_of = [&](const std::function<TensorHandle(const Device&)>& make) {
    const TensorData expected = ops::into_data(make(Device::ndarray()));
    const uint64_t before = shader::index_copy_dispatches().load();
    const TensorData actual = ops::into_data(make(device));
    EXPECT_TRUE(same_bits_or_both_nan(actual, expected));
    return shader::index_copy_dispatches().load() - before;
  };
  // i32: an add every shader device computes (wgpu runs i64 on the host, whose upload knows it).
  const auto uploaded = [](const Device& d) {
    return index_tensor({4, 1, 5, 5}, Shape{4}, DType::I32, d);
  };
  EXPECT_EQ(dispatches_of([&](const Device& d) {
              return ops::select(pattern(x, DType::F32, d, 1), 0, uploaded(d));
            }),
            1u)
      << "indices from the host";
  EXPECT_EQ(dispatches_of([&](const Device& d) {
              return ops::select(pattern(x, DType::F32, d, 1), 0,
                                 ops::add_scalar(uploaded(d), Scalar(int64_t{-1})));
            }),
            2u)
      << "indices computed on the device";
}

void expect_index_out_of_range_is_ndarrays_error(const Device& device) {
  const Shape x{3, 4};
  using Make = std::function<TensorHandle(const Device&)>;
  const auto indices = [](const Device& d, std::vector<int64_t> values) {
    const Shape shape{static_cast<int64_t>(values.size())};
    return index_tensor(values, shape, DType::I64, d);
  };
  const std::vector<std::pair<std::string, Make>> cases = {
      {"select",
       [&](const Device& d) {
         return ops::select(pattern(x, DType::F32, d, 1), 1, indices(d, {0, 4, 9}));
       }},
      {"select_assign",
       [&](const Device& d) {
         return ops::select_assign(pattern(x, DType::F32, d, 1), 0, indices(d, {1, 3}),
                                   pattern(Shape{2, 4}, DType::F32, d, 2));
       }},
      {"gather",
       [&](const Device& d) {
         return ops::gather(
             pattern(x, DType::F32, d, 1), 1,
             index_tensor({0, 1, 2, 3, 3, 2, 1, 70000, 0, 0, 0, 0}, x, DType::I32, d));
       }},
      {"scatter", [&](const Device& d) {
         return ops::scatter(pattern(x, DType::F32, d, 1), 0,
                             index_tensor({0, 1, 2, 3, 3, 2, 1, 0, 0, 0, 0, 0}, x, DType::I64, d),
                             pattern(x, DType::F32, d, 2));
       }}};
  for (const auto& [name, make] : cases) {
    const std::string expected = error_of(make, Device::ndarray());
    EXPECT_NE(expected, "no error") << name;
    EXPECT_EQ(error_of(make, device), expected) << name;
  }
  // The device goes on.
  expect_same("select after the errors", device, true, [&](const Device& d) {
    return ops::select(pattern(x, DType::F32, d, 1), 1, indices(d, {3, 0}));
  });
}

}  // namespace ember::test
