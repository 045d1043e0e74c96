#include "backends/remote/remote_backend.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/remote/batch_sender.h"
#include "backends/remote/fused_answers.h"
#include "backends/remote/remote_link.h"
#include "core/tensor_bytes.h"
#include "ember/error.h"
#include "ir/rules.h"
#include "wire/meta_codec.h"
#include "wire/settings_codec.h"

namespace ember::backend::remote {
namespace {

/// A batch is sent once it holds this many ops (or releases), without waiting for a flush.
constexpr std::size_t kBatchOps = 256;
constexpr std::size_t kBatchReleases = 4096;

/// What the backend, its buffers and its timestamps share: the connection, the batch, the ids to
/// release.
struct Session {
  explicit Session(std::unique_ptr<Link> link) : link(std::move(link)) {}

  std::mutex mutex;
  std::unique_ptr<Link> link;
  uint64_t next_id = 1;
  std::vector<QueuedOp> batch;
  BatchSender sender;
  std::vector<uint64_t> releases;
  std::vector<uint64_t> timestamp_releases;
  FusedAnswers fused;

  /// Sends the batch and the releases (the caller holds mutex).
  void flush_locked();
  /// After the batch, the request set(root) writes: its reply (call) or none (send).
  template <typename Set>
  wire::Received call(Set&& set) {
    const std::lock_guard lock(mutex);
    send_locked(set);
    return link->receive_reply();
  }
  template <typename Set>
  void send(Set&& set) {
    const std::lock_guard lock(mutex);
    send_locked(set);
  }
  template <typename Set>
  void send_locked(Set&& set) {
    capnp::MallocMessageBuilder request;
    set(request.initRoot<proto::Request>());
    flush_locked();
    link->send(request);
  }
  /// Queues id for release in ids (releases or timestamp_releases), sent with the next batch.
  void release(std::vector<uint64_t>& ids, uint64_t id) {
    const std::lock_guard lock(mutex);
    ids.push_back(id);
  }
};

/// Sends ids, when there are any, in the request set(root, ids) writes, and forgets them.
template <typename Set>
void send_ids(Link& link, std::vector<uint64_t>& ids, Set&& set) {
  if (ids.empty()) return;
  capnp::MallocMessageBuilder message;
  set(message.initRoot<proto::Request>(), kj::arrayPtr(ids.data(), ids.size()));
  ids.clear();
  link.send(message);
}

void Session::flush_locked() {
  if (!batch.empty()) {
    const std::vector<QueuedOp> sent = std::exchange(batch, {});
    sender.send(sent, releases, *link);
  }
  send_ids(*link, releases, [](proto::Request::Builder request, kj::ArrayPtr<uint64_t> ids) {
    request.setRelease(ids);
  });
  send_ids(*link, timestamp_releases,
           [](proto::Request::Builder request, kj::ArrayPtr<uint64_t> ids) {
             request.setReleaseTimestamps(ids);
           });
}

/// A tensor of the session, named by its id; released when the last reference goes.
class RemoteBuffer final : public Buffer {
 public:
  RemoteBuffer(std::shared_ptr<Session> session, uint64_t id)
      : session_(std::move(session)), id_(id) {}
  ~RemoteBuffer() override { session_->release(session_->releases, id_); }
  uint64_t id() const { return id_; }

 private:
  std::shared_ptr<Session> session_;
  uint64_t id_;
};

/// A point on the server's clock (its device's where it has one), kept by the server under an id
/// until this dies.
class RemoteTimestamp final : public DeviceTimestamp {
 public:
  RemoteTimestamp(std::shared_ptr<Session> session, uint64_t id)
      : session_(std::move(session)), id_(id) {}
  ~RemoteTimestamp() override { session_->release(session_->timestamp_releases, id_); }

  double seconds_since(const DeviceTimestamp& earlier) const override {
    const uint64_t from = static_cast<const RemoteTimestamp&>(earlier).id_;
    wire::Received reply = session_->call([&](proto::Request::Builder request) {
      auto elapsed = request.initElapsed();
      elapsed.setFrom(from);
      elapsed.setTo(id_);
    });
    const auto root = reply.root<proto::Reply>();
    if (!root.isSeconds())
      throw ExecutionError("[remote://" + session_->link->address() +
                           "] the server's answer to elapsed is not a duration");
    return root.getSeconds();
  }

 private:
  std::shared_ptr<Session> session_;
  uint64_t id_;
};

uint64_t id_of(const Operand& operand) {
  return static_cast<const RemoteBuffer&>(*operand.buffer).id();
}

class RemoteBackend final : public Backend {
 public:
  RemoteBackend(std::shared_ptr<Session> session, HostedDevice hosted)
      : session_(std::move(session)), hosted_(std::move(hosted)) {}

  std::string name() const override { return "remote"; }
  std::string description() const override {
    return hosted_.name + " served by " + session_->link->address();
  }
  bool supports_dtype(DType dtype) const override {
    return std::ranges::find(hosted_.dtypes, dtype) != hosted_.dtypes.end();
  }
  /// The server's device's settings.
  DeviceSettings default_settings() const override;
  /// Configures the server's device; DeviceError as it refuses.
  void apply_settings(const DeviceSettings& settings) override;

  Outputs execute(const ir::Op& op, std::span<const Operand> inputs,
                  std::span<const ir::TensorMeta> outputs) override {
    const std::lock_guard lock(session_->mutex);
    QueuedOp& queued = session_->batch.emplace_back(QueuedOp{op, {}, {}});
    for (const Operand& input : inputs)
      queued.inputs.push_back(id_of(input));
    Outputs buffers;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      queued.outputs.push_back(session_->next_id);
      buffers.push_back(std::make_shared<RemoteBuffer>(session_, session_->next_id++));
    }
    if (session_->batch.size() >= kBatchOps || session_->releases.size() >= kBatchReleases)
      session_->flush_locked();
    return buffers;
  }

  // As the server's device answers: the fused op runs there as it would locally.
  bool runs_fused_attention(const ir::Attention& op,
                            std::span<const ir::TensorMeta> inputs) const override {
    const std::lock_guard lock(session_->mutex);
    return session_->fused.fuses(*session_->link, op, inputs);
  }
  bool runs_fused_rows(const ir::Op& op, std::span<const ir::TensorMeta> inputs) const override {
    const std::lock_guard lock(session_->mutex);
    return session_->fused.fuses(*session_->link, op, inputs);
  }

  BufferPtr write(const TensorData& data) override;
  TensorData read(const Operand& operand) override;

  void sync() override {
    session_->call([](proto::Request::Builder request) { request.setSync(); });
  }
  void flush() override {
    const std::lock_guard lock(session_->mutex);
    session_->flush_locked();
  }
  /// A timestamp the server keeps, after the batch: its device's where it has a clock, else its
  /// wall clock once its device finished the work before it. Nothing waits here.
  std::shared_ptr<DeviceTimestamp> record_timestamp() override {
    const std::lock_guard lock(session_->mutex);
    const uint64_t id = session_->next_id++;
    session_->send_locked([&](proto::Request::Builder request) { request.setTimestamp(id); });
    return std::make_shared<RemoteTimestamp>(session_, id);
  }
  std::optional<MemoryPoolUsage> memory_pool_usage() const override;
  void memory_cleanup() override {
    session_->send([](proto::Request::Builder request) { request.setMemoryCleanup(); });
  }

 private:
  std::shared_ptr<Session> session_;
  HostedDevice hosted_;
};

BufferPtr RemoteBackend::write(const TensorData& data) {
  const std::lock_guard lock(session_->mutex);
  session_->flush_locked();
  const uint64_t id = session_->next_id++;
  capnp::MallocMessageBuilder message;
  auto upload = message.initRoot<proto::Request>().initUpload();
  upload.setId(id);
  wire::encode_meta(data.shape(), data.dtype(), upload.initMeta());
  // The tensor's bytes follow the message, from where they are.
  session_->link->send(message, data.bytes());
  return std::make_shared<RemoteBuffer>(session_, id);
}

TensorData RemoteBackend::read(const Operand& operand) {
  const std::lock_guard lock(session_->mutex);
  session_->flush_locked();
  capnp::MallocMessageBuilder request;
  request.initRoot<proto::Request>().setDownload(id_of(operand));
  Link& link = *session_->link;
  {
    wire::Received reply = link.call(request);
    const auto meta = reply.root<proto::Reply>();
    if (!meta.isMeta() || wire::decode_shape(meta.getMeta()) != operand.meta.shape ||
        meta.getMeta().getDtype() != static_cast<uint8_t>(operand.meta.dtype))
      throw ExecutionError("[remote://" + link.address() +
                           "] the server's download is not a tensor of " +
                           ir::rules::concat(operand.meta.shape, " ", operand.meta.dtype));
  }
  // Read straight into the destination, which nothing clears first.
  TensorData data = TensorData::uninitialized(operand.meta.shape, operand.meta.dtype);
  link.receive_bytes(data.bytes_mut());
  if (operand.meta.dtype == DType::Bool) detail::check_bool_bytes(data.bytes(), "remote download");
  return data;
}

DeviceSettings RemoteBackend::default_settings() const {
  wire::Received reply =
      session_->call([](proto::Request::Builder request) { request.setSettings(); });
  const auto root = reply.root<proto::Reply>();
  try {
    if (!root.isSettings()) throw InvalidArgument("the answer to settings is not settings");
    return wire::decode_settings(root.getSettings());
  } catch (const InvalidArgument& e) {
    throw ExecutionError("[remote://" + session_->link->address() + "] " + e.what());
  }
}

void RemoteBackend::apply_settings(const DeviceSettings& settings) {
  wire::Received reply = session_->call([&](proto::Request::Builder request) {
    wire::encode_settings(settings, request.initConfigure());
  });
  const auto root = reply.root<proto::Reply>();
  if (!root.isConfigureError()) return;
  const auto refusal = root.getConfigureError();
  const uint8_t kind = refusal.getKind();
  const std::string why =
      "[remote://" + session_->link->address() + "] " + std::string(refusal.getMessage().cStr());
  if (kind > static_cast<uint8_t>(DeviceErrorKind::AlreadyInitialized))
    throw ExecutionError(why + " (refused for reason " + std::to_string(kind) + ", unknown)");
  throw DeviceError(static_cast<DeviceErrorKind>(kind), why);
}

std::optional<MemoryPoolUsage> RemoteBackend::memory_pool_usage() const {
  wire::Received reply =
      session_->call([](proto::Request::Builder request) { request.setMemoryUsage(); });
  const auto usage = reply.root<proto::Reply>().getUsage();
  if (!usage.getAvailable()) return std::nullopt;
  MemoryPoolUsage result;
  result.bytes_in_use = usage.getBytesInUse();
  result.bytes_padding = usage.getBytesPadding();
  result.bytes_reserved = usage.getBytesReserved();
  result.number_allocs = usage.getNumberAllocs();
  return result;
}

}  // namespace

std::unique_ptr<Backend> make_remote_backend(const RemoteDevice& device) {
  auto link = std::make_unique<Link>(device.address, device.access);
  std::vector<HostedDevice> hosted = link->list_devices();
  if (device.index >= hosted.size())
    throw ExecutionError("[remote://" + device.address + "/" + std::to_string(device.index) +
                         "] no such device: the server hosts " + std::to_string(hosted.size()));
  capnp::MallocMessageBuilder request;
  request.initRoot<proto::Request>().setOpen(device.index);
  link->call(request);
  return std::make_unique<RemoteBackend>(std::make_shared<Session>(std::move(link)),
                                         std::move(hosted[device.index]));
}

std::vector<DispatchDevice> hosted_devices(const RemoteHost& host) {
  Link link(host.address(), host.access());
  const std::size_t count = link.list_devices().size();
  std::vector<DispatchDevice> devices;
  for (std::size_t i = 0; i < count; ++i)
    devices.emplace_back(RemoteDevice{host.address(), static_cast<uint32_t>(i), host.access()});
  return devices;
}

}  // namespace ember::backend::remote
