// DeviceContext: the process-wide table of physical devices, their settings and their RNG.
#include "core/device_context.h"

#include <deque>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "backends/registry.h"
#include "ember/error.h"
#include "ir/random.h"

namespace ember::detail {

namespace {

/// A device of the table and its context, made on first use under the slot's own lock: creating
/// a backend may take long (a remote one connects to its server, whose process may be this one)
/// and must not hold up every other device.
struct ContextSlot {
  explicit ContextSlot(DispatchDevice d) : device(std::move(d)) {}
  DispatchDevice device;
  std::mutex creating;
  std::shared_ptr<DeviceContext> context;
};

/// Every device looked up so far. Note: deliberately never destroyed, so code running in static
/// destructors (a global model freeing its tensors, a last sync) can still look devices up. A
/// deque, so that a slot stays where it is while others are added (of() remembers one).
struct ContextTable {
  std::mutex mutex;
  std::deque<ContextSlot> slots;
};

ContextTable& context_table() {
  static auto* table = new ContextTable();
  return *table;
}

uint64_t entropy_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

std::string configure_prefix(const DispatchDevice& device) {
  return "[configure] device " + device_name(device);
}

void check_supported(const backend::Backend& backend, const DispatchDevice& device, DType dtype) {
  if (!backend.supports_dtype(dtype)) {
    throw DeviceError(
        DeviceErrorKind::UnsupportedDType,
        configure_prefix(device) + " does not support dtype " + std::string(dtype_name(dtype)));
  }
}

/// The table's slot for d, added on first use.
ContextSlot& table_slot(const DispatchDevice& d) {
  ContextTable& table = context_table();
  std::lock_guard lock(table.mutex);
  for (ContextSlot& slot : table.slots) {
    if (slot.device == d) return slot;
  }
  return table.slots.emplace_back(d);
}

/// The context of d, created on first use (a failed creation is tried again by the next call).
const std::shared_ptr<DeviceContext>& table_entry(const DispatchDevice& d) {
  ContextSlot& slot = table_slot(d);
  std::lock_guard lock(slot.creating);
  if (!slot.context) slot.context = std::make_shared<DeviceContext>(d, backend::create(d));
  return slot.context;
}

/// The bytes of the tensors metas describe (their extents passed ir::infer's check).
uint64_t bytes_of(std::span<const ir::TensorMeta> metas) {
  uint64_t bytes = 0;
  for (const ir::TensorMeta& meta : metas)
    bytes += static_cast<uint64_t>(meta.shape.num_elements()) * dtype_size(meta.dtype);
  return bytes;
}

/// "; the pools hold 6291456 bytes (512 in use by 2 tensors)", or that there are none.
std::string pool_holdings(const backend::Backend& backend) {
  const std::optional<MemoryPoolUsage> usage = backend.memory_pool_usage();
  if (!usage) return "; " + backend.name() + " keeps no memory pool";
  return "; the pools hold " + std::to_string(usage->bytes_reserved) + " bytes (" +
         std::to_string(usage->bytes_in_use) + " in use by " +
         std::to_string(usage->number_allocs) + " tensors)";
}

}  // namespace

template <typename Site, typename Call>
decltype(auto) DeviceContext::guarded(const Site& site, Call&& call) {
  try {
    return call();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw out_of_memory(site());
  } catch (const std::length_error&) {  // a container asked for more than it can ever hold
    throw out_of_memory(site());
  } catch (const std::exception& e) {
    throw ExecutionError("[" + site().what + "] " + device_name(device_) + ": " + e.what());
  }
}

ExecutionError DeviceContext::out_of_memory(const CallSite& failed) const {
  return ExecutionError("[" + failed.what + "] " + device_name(device_) +
                        ": out of memory: " + std::to_string(failed.bytes) + " bytes requested" +
                        pool_holdings(*backend_));
}

std::shared_ptr<DeviceContext> DeviceContext::of(const DispatchDevice& d) {
  // Note: table entries are never removed or moved, so the last one this thread found stays
  // valid (a plain pointer: nothing to destroy at thread exit, before static destructors that
  // may still look devices up). Most calls name the device of the one before (a sync after each
  // op), and skip the lock and the search, a visible part of an op on a tiny tensor.
  thread_local const std::shared_ptr<DeviceContext>* last = nullptr;
  if (last == nullptr || !((*last)->device() == d)) last = &table_entry(d);
  return *last;
}

DeviceContext::DeviceContext(DispatchDevice device, std::unique_ptr<backend::Backend> backend)
    : device_(std::move(device)), backend_(std::move(backend)), rng_state_(entropy_seed()) {
  if (!backend_) throw InvalidArgument("[DeviceContext] " + device_name(device_) + ": no backend");
  settings_ = backend_->default_settings();
}

DeviceSettings DeviceContext::settings() const {
  std::lock_guard lock(mutex_);
  return settings_;
}

DeviceSettings DeviceContext::lock_settings() {
  std::lock_guard lock(mutex_);
  locked_ = true;
  return settings_;
}

void DeviceContext::configure(const DeviceConfig& config) {
  if (config.float_dtype) check_supported(*backend_, device_, to_dtype(*config.float_dtype));
  if (config.int_dtype) check_supported(*backend_, device_, to_dtype(*config.int_dtype));
  std::lock_guard lock(mutex_);
  if (locked_) {
    throw DeviceError(DeviceErrorKind::AlreadyInitialized,
                      configure_prefix(device_) +
                          ": settings are already initialized (by configure or by a tensor "
                          "created on the device)");
  }
  DeviceSettings configured = settings_;
  if (config.float_dtype) configured.float_dtype = *config.float_dtype;
  if (config.int_dtype) configured.int_dtype = *config.int_dtype;
  if (config.f32_matmul_precision) configured.f32_matmul_precision = *config.f32_matmul_precision;
  if (config.graph_replay) configured.graph_replay = *config.graph_replay;
  // The backend may refuse (a remote server's device configured already): nothing changes then.
  backend_->apply_settings(configured);
  settings_ = configured;
  locked_ = true;
}

void DeviceContext::seed(uint64_t seed) {
  std::lock_guard lock(mutex_);
  // Mixing spreads nearby seeds (0, 1, 2, ...) to unrelated points of the counter space.
  rng_state_ = ir::mix64(seed);
}

uint64_t DeviceContext::next_random_key() {
  std::lock_guard lock(mutex_);
  return ir::mix64(rng_state_++);
}

backend::Outputs DeviceContext::execute(const ir::Op& op, std::span<const backend::Operand> inputs,
                                        std::span<const ir::TensorMeta> outputs) {
  auto buffers = guarded(
      [&] {
        return CallSite{ir::name(op), bytes_of(outputs)};
      },
      [&] { return backend_->execute(op, inputs, outputs); });
  work_count_.fetch_add(1, std::memory_order_relaxed);
  return buffers;
}

template <typename Call>
backend::BufferPtr DeviceContext::counted_upload(uint64_t bytes, Call&& call) {
  auto buffer = guarded([&] { return CallSite{"from_data", bytes}; }, call);
  work_count_.fetch_add(1, std::memory_order_relaxed);
  return buffer;
}

backend::BufferPtr DeviceContext::write(const TensorData& data) {
  return counted_upload(data.bytes().size(), [&] { return backend_->write(data); });
}

backend::BufferPtr DeviceContext::write_from(
    const ir::TensorMeta& meta, const std::function<void(std::span<std::byte>)>& fill) {
  return counted_upload(bytes_of({&meta, 1}), [&] { return backend_->write_from(meta, fill); });
}

TensorData DeviceContext::read(const backend::Operand& operand) {
  return guarded(
      [&] {
        return CallSite{"into_data", bytes_of({&operand.meta, 1})};
      },
      [&] { return backend_->read(operand); });
}

std::optional<backend::HostMemory> DeviceContext::share_host_memory(const backend::Operand& operand,
                                                                    std::string_view op) {
  // Sharing computes a queued value first (fusion), which allocates its bytes.
  return guarded(
      [&] {
        return CallSite{std::string(op), bytes_of({&operand.meta, 1})};
      },
      [&] { return backend_->share_host_memory(operand); });
}

backend::BufferPtr DeviceContext::wrap_host_memory(const backend::HostMemory& memory,
                                                   const ir::TensorMeta& meta,
                                                   std::string_view op) {
  return guarded(
      [&] {
        return CallSite{std::string(op), 0};
      },
      [&] { return backend_->wrap_host_memory(memory, meta); });
}

void DeviceContext::sync() {
  guarded([] { return CallSite{"sync", 0}; }, [&] { backend_->sync(); });
}

void DeviceContext::flush() {
  guarded([] { return CallSite{"flush", 0}; }, [&] { backend_->flush(); });
}

std::shared_ptr<backend::DeviceTimestamp> DeviceContext::record_timestamp() {
  std::shared_ptr<backend::DeviceTimestamp> timestamp;
  guarded([] { return CallSite{"profile", 0}; }, [&] { timestamp = backend_->record_timestamp(); });
  return timestamp;
}

}  // namespace ember::detail
