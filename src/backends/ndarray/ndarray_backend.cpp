#include "backends/ndarray/ndarray_backend.h"

#include <memory>
#include <utility>
#include <variant>

#include "backends/ndarray/kernels.h"
#include "backends/ndarray/ndarray_buffer.h"

namespace ember::ndarray {
namespace {

NdArrayBuffer& buffer_of(const backend::Operand& operand) {
  auto* buffer = dynamic_cast<NdArrayBuffer*>(operand.buffer.get());
  if (buffer == nullptr) {
    throw InvalidArgument("[ndarray] operand buffer does not belong to the ndarray backend");
  }
  return *buffer;
}

const TensorData& data_of(const backend::Operand& operand) {
  return buffer_of(operand).data;
}

// Kernels return one TensorData, or several for ops with several outputs (sort).
std::vector<TensorData> as_results(TensorData result) {
  std::vector<TensorData> results;
  results.push_back(std::move(result));
  return results;
}
std::vector<TensorData> as_results(std::vector<TensorData> results) {
  return results;
}

}  // namespace

backend::Outputs NdArrayBackend::execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                                         std::span<const ir::TensorMeta> outputs) {
  std::vector<const TensorData*> data;
  for (const backend::Operand& operand : inputs)
    data.push_back(&data_of(operand));
  std::vector<TensorData> results =
      std::visit([&](const auto& o) { return as_results(run(o, data, outputs)); }, op);
  backend::Outputs buffers;
  for (TensorData& result : results) {
    buffers.push_back(std::make_shared<NdArrayBuffer>(std::move(result)));
  }
  return buffers;
}

backend::BufferPtr NdArrayBackend::write(const TensorData& data) {
  return std::make_shared<NdArrayBuffer>(data);
}

TensorData NdArrayBackend::read(const backend::Operand& operand) {
  return data_of(operand);
}

std::optional<backend::HostMemory> NdArrayBackend::share_host_memory(
    const backend::Operand& operand) {
  TensorData& data = buffer_of(operand).data;
  return backend::HostMemory{data.bytes_mut().data(), data.shape().contiguous_strides(),
                             operand.buffer};
}

}  // namespace ember::ndarray
