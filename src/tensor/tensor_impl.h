// TensorImpl: what a TensorHandle points to. Immutable once built; ops make new ones.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "backends/backend.h"
#include "core/device_context.h"
#include "core/index_range.h"
#include "core/recycled_shapes.h"
#include "ember/device.h"
#include "ember/tensor_handle.h"

namespace ember::autodiff {
struct Node;  // src/autodiff/node.h
}

namespace ember::detail {

struct TensorImpl {
  // Note: a constructor rather than aggregate initialization, because make_shared and
  // make_recycled build it in place from parentheses, which clang implements for aggregates only
  // from version 16 on (the fuzz build's clang 14 reaches this layer: docs/fuzzing.md).
  // The device by reference: g++ 12 takes a moved Device's string (RemoteDevice's) for
  // uninitialized (-Wmaybe-uninitialized), and a copy costs as little.
  TensorImpl(const Device& device, std::shared_ptr<DeviceContext> context, ir::TensorMeta meta,
             backend::BufferPtr buffer, std::shared_ptr<autodiff::Node> node, uint32_t output,
             std::optional<IndexRange> known_values)
      : device(device),
        context(std::move(context)),
        meta(std::move(meta)),
        buffer(std::move(buffer)),
        node(std::move(node)),
        output(output),
        known_values(known_values) {}

  /// The tensor's device, carrying the tensor's own autodiff flag.
  Device device;
  /// The physical device's context (cached so ops skip the registry lookup).
  std::shared_ptr<DeviceContext> context;
  ir::TensorMeta meta;
  backend::BufferPtr buffer;
  /// The autodiff graph node this tensor is output `output` of; null for a constant (see
  /// src/autodiff/tape.h). Set only on an autodiff device.
  std::shared_ptr<autodiff::Node> node = nullptr;
  uint32_t output = 0;
  /// The range of an integer tensor's values where the host knows it without reading the device:
  /// a tensor made from host data (from_data). An op that checks its indices on the host
  /// (cross-entropy's targets) then needs no read, which would wait for the device.
  std::optional<IndexRange> known_values = std::nullopt;

  /// Gives the shape's memory to the thread's next output shape (core/recycled_shapes.h).
  ~TensorImpl() { recycle(std::move(meta.shape)); }

  backend::Operand operand() const { return {buffer, meta}; }
};

/// Wraps a buffer the device produced (known_values: its values' range, where the host knows it).
TensorHandle make_handle(Device device, std::shared_ptr<DeviceContext> context, ir::TensorMeta meta,
                         backend::BufferPtr buffer,
                         std::optional<IndexRange> known_values = std::nullopt);
/// impl's buffer as output `output` of node (null: a constant) on device
/// (src/tensor/autodiff_ops.cpp).
TensorHandle link(const TensorImpl& impl, Device device, std::shared_ptr<autodiff::Node> node,
                  uint32_t output);

}  // namespace ember::detail
