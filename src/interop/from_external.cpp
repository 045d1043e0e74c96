// Tensors over memory the caller allocated, released through the caller's deleter.
#include <memory>
#include <utility>

#include "ember/interop.h"
#include "interop/import.h"

namespace ember::interop {
TensorHandle from_external(ExternalMemory memory, const Device& device, Copy copy) {
  // Owned from here on: deleter(data) runs when owner's last copy dies (also for a null data;
  // shared_ptr runs it too if making owner throws).
  std::shared_ptr<void> owner;
  if (memory.deleter) owner = std::shared_ptr<void>(memory.data, std::move(memory.deleter));
  ForeignTensor foreign{
      {static_cast<std::byte*>(memory.data), std::move(memory.strides), std::move(owner)},
      {std::move(memory.shape), memory.dtype}};
  return import_foreign(std::move(foreign), device, copy, "from_external");
}

}  // namespace ember::interop
