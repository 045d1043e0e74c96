// .npy and .npz files on disk: the formats (npy_read.cpp, npy_write.cpp, npz_read.cpp,
// npz_write.cpp) on top of whole-file I/O (file_io.cpp).
#include "ember/record/file_io.h"
#include "ember/record/numpy.h"
#include "file_io.h"
#include "npy_format.h"
#include "npz_format.h"

namespace ember::record {

void save_npy(const std::filesystem::path& path, const TensorData& data) {
  const std::vector<std::byte> file =
      detail::serialize_npy_with(data, detail::Failure("save_npy", path.string()));
  const std::span<const std::byte> pieces[] = {file};
  write_file_atomically(path, pieces, "save_npy");
}

TensorData load_npy(const std::filesystem::path& path) {
  return deserialize_npy(detail::read_file(path, "load_npy"), path.string());
}

void save_npz(const std::filesystem::path& path, std::span<const NamedData> arrays) {
  const std::vector<std::byte> file =
      detail::serialize_npz_with(arrays, detail::Failure("save_npz", path.string()));
  const std::span<const std::byte> pieces[] = {file};
  write_file_atomically(path, pieces, "save_npz");
}

std::vector<NamedData> load_npz(const std::filesystem::path& path) {
  return deserialize_npz(detail::read_file(path, "load_npz"), path.string());
}

}  // namespace ember::record
