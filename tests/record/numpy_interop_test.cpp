// ember's .npy and .npz files against NumPy itself: ember writes files that numpy.load reads
// (and that match numpy.save byte for byte), and reads what numpy.save, numpy.savez and
// numpy.savez_compressed write, Fortran-order and big-endian arrays included. NumPy's side is
// numpy_interop.py, run with /usr/bin/python3; without NumPy there the test fails, naming the fix.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember/record/numpy.h"
#include "numpy_test_util.h"
#include "support/source_dir.h"

namespace ember::record {
namespace {

/// numpy_interop.py's values(descr, count), by element index i: floats i * 0.5 - 3, signed ints
/// i * 7 - 20, unsigned ints i * 7, bools i % 3 == 0.
TensorData interop_values(DType dtype, Shape shape) {
  const auto count = static_cast<std::size_t>(shape.num_elements());
  std::vector<double> values(count);
  for (std::size_t n = 0; n < count; ++n) {
    const double i = static_cast<double>(n);
    values[n] = is_float(dtype)          ? i * 0.5 - 3
                : is_signed_int(dtype)   ? i * 7 - 20
                : is_unsigned_int(dtype) ? i * 7
                                         : (n % 3 == 0 ? 1 : 0);
  }
  return TensorData(values, std::move(shape), dtype);
}

/// The short NumPy spelling of dtype, as numpy_interop.py names the files: "f4", "b1", ...
std::string numpy_code(DType dtype) {
  return is_bool(dtype) ? "b1"
                        : std::string(is_float(dtype)        ? "f"
                                      : is_signed_int(dtype) ? "i"
                                                             : "u") +
                              std::to_string(dtype_size(dtype));
}

/// The array called name (an empty TensorData, and a failure, when there is none).
TensorData find_array(const std::vector<NamedData>& arrays, const std::string& name) {
  for (const NamedData& array : arrays) {
    if (array.name == name) return array.data;
  }
  ADD_FAILURE() << "no array " << name;
  return TensorData();
}

TEST(NumpyInterop, EmberAndNumpyReadEachOthersFiles) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null"), 0)
      << "/usr/bin/python3 cannot import numpy: run scripts/install-deps (as root) to install "
         "python3-numpy";
  test::TempDir dir;
  for (const DType dtype : kAllDTypes) {
    if (dtype == DType::BF16) continue;
    save_npy(dir / ("ember_" + numpy_code(dtype) + ".npy"), interop_values(dtype, Shape{2, 3}));
  }
  save_npy(dir / "ember_scalar.npy", TensorData(std::vector<double>{2.5}, Shape{}));
  save_npy(dir / "ember_empty.npy", TensorData::zeros(Shape{0, 3}, DType::F32));
  const std::vector<NamedData> arrays = {{"weight", interop_values(DType::F32, Shape{3, 2})},
                                         {"step", TensorData(std::vector<int64_t>{7}, Shape{1})}};
  save_npz(dir / "ember.npz", arrays);

  const std::string command = "/usr/bin/python3 '" + ember::test::source_dir() +
                              "/tests/record/numpy_interop.py' '" + dir.path().string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command << " failed (its messages are above)";

  EXPECT_EQ(load_npy(dir / "np_f4.npy"), interop_values(DType::F32, Shape{2, 3}));
  // np.asfortranarray of the same values: the file holds them column by column.
  EXPECT_EQ(load_npy(dir / "np_fortran.npy"), interop_values(DType::F64, Shape{2, 3}));
  EXPECT_EQ(load_npy(dir / "np_big.npy"), interop_values(DType::I32, Shape{3, 2}));
  EXPECT_EQ(load_npy(dir / "np_scalar.npy"), TensorData(std::vector<float>{-1.25f}, Shape{}));
  EXPECT_EQ(load_npy(dir / "np_bool.npy"),
            TensorData(std::vector<bool>{true, false, false, true}, Shape{4}));
  for (const char* file : {"np_savez.npz", "np_compressed.npz"}) {
    SCOPED_TRACE(file);
    const std::vector<NamedData> read = load_npz(dir / file);
    ASSERT_EQ(read.size(), 4u);
    EXPECT_EQ(find_array(read, "x"), interop_values(DType::F32, Shape{2, 3}));
    EXPECT_EQ(find_array(read, "y"), interop_values(DType::I64, Shape{5}));
    EXPECT_EQ(find_array(read, "fortran"), interop_values(DType::F64, Shape{2, 3}));
    EXPECT_EQ(find_array(read, "big"), interop_values(DType::U16, Shape{4}));
  }
}

}  // namespace
}  // namespace ember::record
