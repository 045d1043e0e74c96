// safetensors files on disk: the format (safetensors_read.cpp, safetensors_write.cpp) on top of
// whole-file I/O (file_io.cpp).
#include "ember/record/safetensors.h"

#include "ember/record/file_io.h"
#include "file_io.h"
#include "safetensors_layout.h"

namespace ember::record {

const TensorData* Record::find(std::string_view name) const {
  for (const NamedData& tensor : tensors) {
    if (tensor.name == name) return &tensor.data;
  }
  return nullptr;
}

void save_safetensors(const Record& record, const std::filesystem::path& path) {
  const detail::SafetensorsLayout layout = detail::layout_safetensors(record);
  write_file_atomically(path, layout.pieces(), "save_safetensors");
}

Record load_safetensors(const std::filesystem::path& path) {
  return deserialize_safetensors(detail::read_file(path, "load_safetensors"), path.string());
}

}  // namespace ember::record
