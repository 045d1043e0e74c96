// The request loop of a connection. A request the protocol does not allow at that point (an
// unknown tensor id, an id used twice, a malformed op) is a violation: answered with an
// error, then the connection closes, since nothing after it can be trusted. An op that fails on
// the device is not: its outputs carry the failure, and the next sync or download reports it.
#include "serve/session.h"

#include <capnp/message.h>
#include <dlpack/dlpack.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "core/device_context.h"
#include "core/tensor_bytes.h"
#include "ember/error.h"
#include "ember/interop.h"
#include "ember/tensor_bytes.h"
#include "ember/tensor_ops.h"
#include "ir/fused_rows.h"
#include "ir/ops.h"
#include "ir/rules.h"
#include "serve/work_budget.h"
#include "tensor/dispatch.h"
#include "tensor/tensor_impl.h"
#include "wire/channel.h"
#include "wire/meta_codec.h"
#include "wire/op_codec.h"
#include "wire/protocol.capnp.h"
#include "wire/settings_codec.h"
#include "wire/tls.h"

namespace ember::serve {
namespace {

namespace proto = wire::proto;
using proto::Request;

/// A request the protocol does not allow here: answered, then the connection closes.
struct Violation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A tensor of the session, or the failure of the op that was to make it.
struct Entry {
  TensorHandle tensor;
  std::string failure;
  std::size_t bytes = 0;
};

/// An op of a kept sequence: the op, decoded once, its input references and its output count.
struct SequenceCall {
  ir::Op op;
  std::vector<uint64_t> inputs;  // k: the replay's k-th tensor; kInternal + j: the j-th output
  std::size_t outputs;
  std::vector<uint64_t> drops;  // references the client let go, read by no later call
};

/// A sequence a session keeps (define), run again by replay.
struct Sequence {
  uint32_t externals;
  std::vector<SequenceCall> calls;
  uint64_t outputs;  // of every call together
};

/// A point on the server's clock after the work submitted before it: the device's timestamp
/// where it has a clock of its own, else the wall clock once the device finished that work.
struct Timestamp {
  std::shared_ptr<backend::DeviceTimestamp> device;
  std::chrono::steady_clock::time_point wall;
};

/// The bit of an input reference that names an output of the sequence itself.
constexpr uint64_t kInternal = uint64_t{1} << 63;
/// What a session may keep of sequences: a training step is a few of them.
constexpr std::size_t kMaxSequences = 1024;
constexpr std::size_t kMaxStoredCalls = std::size_t{1} << 18;
/// Timestamps a session may keep: two per profile window whose duration is not resolved yet.
constexpr std::size_t kMaxTimestamps = std::size_t{1} << 20;

class Session {
 public:
  Session(wire::Channel& channel, Shared& shared, const std::function<void()>& greeted)
      : channel_(channel),
        shared_(shared),
        on_greeted_(greeted),
        budget_(shared.options.max_batch_elements, shared.options.max_batch_work) {}
  ~Session() { release_all(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Handles requests until the client leaves (ExecutionError from the channel).
  void run();

 private:
  void handle(Request::Reader request);
  void hello(proto::Hello::Reader hello);
  void list_devices();
  void open(uint32_t index);
  void run_ops(capnp::List<proto::OpCall>::Reader calls);
  void define(proto::Sequence::Reader sequence);
  /// Gives each dead reference of kept (checked) to the call after which no call reads it.
  static void schedule_drops(capnp::List<uint64_t>::Reader dead, Sequence& kept);
  void replay(proto::Replay::Reader replay);
  void run_op(const ir::Op& op, std::span<const uint64_t> input_ids,
              std::span<const uint64_t> output_ids);
  void upload(proto::Upload::Reader upload);
  /// Reads count bytes off the stream and drops them (an upload the device could not take).
  void discard_bytes(std::size_t count);
  void download(uint64_t id);
  void release(capnp::List<uint64_t>::Reader ids);
  /// Forgets tensor id, which must exist.
  void forget(uint64_t id);
  void sync();
  void memory_usage();
  void settings();
  void configure(proto::Settings::Reader settings);
  void timestamp(uint64_t id);
  void elapsed(proto::Elapsed::Reader elapsed);
  void release_timestamps(capnp::List<uint64_t>::Reader ids);
  void fuses(proto::Fuses::Reader query);
  const Timestamp& kept_timestamp(uint64_t id) const;

  void reply_ok();
  void reply_error(const std::string& message);
  void require_ready() const;
  const Entry& entry(uint64_t id) const;
  void require_new(uint64_t id) const;
  void store(uint64_t id, Entry entry);
  void fail_outputs(std::span<const uint64_t> outputs, const std::string& failure);
  void release_all() noexcept;

  wire::Channel& channel_;
  Shared& shared_;
  const std::function<void()>& on_greeted_;
  bool greeted_ = false;
  std::optional<Device> device_;
  std::shared_ptr<detail::DeviceContext> context_;  // device_'s
  std::unordered_map<uint64_t, Entry> tensors_;
  std::size_t bytes_ = 0;
  std::string pending_failure_;  // the first op failure since the last sync
  std::unordered_map<uint64_t, Sequence> sequences_;
  std::size_t stored_calls_ = 0;  // the ops of every sequence kept
  std::unordered_map<uint64_t, Timestamp> timestamps_;
  WorkBudget budget_;  // of the batch (run or replay) being run
};

void Session::run() {
  for (;;) {
    wire::Received received = channel_.receive();
    wire::rethrow_malformed([&] { handle(received.root<Request>()); });
  }
}

void Session::handle(Request::Reader request) {
  if (!greeted_ && request.which() != Request::HELLO)
    throw Violation("the first request must be hello");
  switch (request.which()) {
    case Request::HELLO:
      return hello(request.getHello());
    case Request::LIST_DEVICES:
      return list_devices();
    case Request::OPEN:
      return open(request.getOpen());
    case Request::RUN:
      return run_ops(request.getRun());
    case Request::UPLOAD:
      return upload(request.getUpload());
    case Request::DOWNLOAD:
      return download(request.getDownload());
    case Request::RELEASE:
      return release(request.getRelease());
    case Request::SYNC:
      return sync();
    case Request::SEED:
      require_ready();
      return device_->seed(request.getSeed());
    case Request::MEMORY_USAGE:
      return memory_usage();
    case Request::MEMORY_CLEANUP:
      require_ready();
      return device_->memory_cleanup();
    case Request::DEFINE:
      return define(request.getDefine());
    case Request::REPLAY:
      return replay(request.getReplay());
    case Request::SETTINGS:
      return settings();
    case Request::CONFIGURE:
      return configure(request.getConfigure());
    case Request::TIMESTAMP:
      return timestamp(request.getTimestamp());
    case Request::ELAPSED:
      return elapsed(request.getElapsed());
    case Request::RELEASE_TIMESTAMPS:
      return release_timestamps(request.getReleaseTimestamps());
    case Request::FUSES:
      return fuses(request.getFuses());
  }
  throw Violation("unknown request " + std::to_string(static_cast<int>(request.which())));
}

/// Compares without an early exit, so the time taken does not tell how much of a guess matched.
bool same_credential(std::string_view expected, std::string_view given) {
  unsigned char difference = expected.size() == given.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i)
    difference |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  return difference == 0;
}

void Session::hello(proto::Hello::Reader hello) {
  if (greeted_) throw Violation("a second hello");
  if (hello.getVersion() != proto::PROTOCOL_VERSION)
    throw Violation("protocol version " + std::to_string(hello.getVersion()) +
                    " is not this server's version " + std::to_string(proto::PROTOCOL_VERSION) +
                    ": use a client and server of the same ember release");
  const std::string& expected = shared_.options.credential;
  const capnp::Text::Reader given = hello.getCredential();
  if (!expected.empty() && !same_credential(expected, {given.begin(), given.size()}))
    throw Violation("the credential is missing or wrong");
  greeted_ = true;
  if (on_greeted_) on_greeted_();
  reply_ok();
}

void Session::list_devices() {
  capnp::MallocMessageBuilder message;
  const std::vector<Device>& devices = shared_.options.devices;
  auto list = message.initRoot<proto::Reply>().initDevices(static_cast<unsigned>(devices.size()));
  for (unsigned i = 0; i < devices.size(); ++i) {
    list[i].setName(device_name(devices[i].as_dispatch()));
    std::vector<uint8_t> dtypes;
    for (DType dtype : kAllDTypes)
      if (devices[i].supports_dtype(dtype)) dtypes.push_back(static_cast<uint8_t>(dtype));
    auto supported = list[i].initDtypes(static_cast<unsigned>(dtypes.size()));
    for (unsigned k = 0; k < dtypes.size(); ++k)
      supported.set(k, dtypes[k]);
  }
  channel_.send(message);
}

void Session::open(uint32_t index) {
  if (device_) throw Violation("a session is already open on this connection");
  const std::vector<Device>& devices = shared_.options.devices;
  if (index >= devices.size())
    throw Violation("no device " + std::to_string(index) + ": this server hosts " +
                    std::to_string(devices.size()));
  // The client's ops arrive as its device made them (autodiff and autocast are the client's):
  // they run as they are.
  device_ = devices[index].without_autodiff().without_autocast();
  context_ = detail::DeviceContext::of(device_->as_dispatch());
  shared_.sessions.fetch_add(1);
  shared_.log(channel_.stream().peer() + ": session on " + device_name(device_->as_dispatch()));
  reply_ok();
}

void Session::require_ready() const {
  if (!device_) throw Violation("no session is open (open a device first)");
}

const Entry& Session::entry(uint64_t id) const {
  const auto found = tensors_.find(id);
  if (found == tensors_.end()) throw Violation("unknown tensor " + std::to_string(id));
  return found->second;
}

void Session::require_new(uint64_t id) const {
  if (tensors_.contains(id)) throw Violation("tensor " + std::to_string(id) + " exists already");
}

void Session::store(uint64_t id, Entry entry) {
  bytes_ += entry.bytes;
  shared_.bytes.fetch_add(entry.bytes);
  tensors_.emplace(id, std::move(entry));
}

/// call's op; a Violation when it decodes to none.
ir::Op decoded(proto::OpCall::Reader call) {
  try {
    return wire::decode_op(call);
  } catch (const InvalidArgument& e) {
    throw Violation(e.what());
  }
}

void Session::run_ops(capnp::List<proto::OpCall>::Reader calls) {
  require_ready();
  budget_.start_batch();
  for (proto::OpCall::Reader call : calls)
    run_op(decoded(call), wire::to_vector<uint64_t>(call.getInputs()),
           wire::to_vector<uint64_t>(call.getOutputs()));
}

void Session::define(proto::Sequence::Reader sequence) {
  require_ready();
  if (sequences_.contains(sequence.getId()))
    throw Violation("sequence " + std::to_string(sequence.getId()) + " exists already");
  const auto calls = sequence.getCalls();
  if (sequences_.size() >= kMaxSequences || stored_calls_ + calls.size() > kMaxStoredCalls)
    throw Violation("the session keeps " + std::to_string(sequences_.size()) + " sequences of " +
                    std::to_string(stored_calls_) + " ops; the limits are " +
                    std::to_string(kMaxSequences) + " and " + std::to_string(kMaxStoredCalls));
  Sequence kept{sequence.getExternals(), {}, 0};
  for (proto::OpCall::Reader call : calls) {
    SequenceCall& step = kept.calls.emplace_back(SequenceCall{decoded(call), {}, 0, {}});
    for (uint64_t reference : call.getInputs()) {
      const bool internal = (reference & kInternal) != 0;
      if (internal ? (reference & ~kInternal) >= kept.outputs : reference >= kept.externals)
        throw Violation("sequence " + std::to_string(sequence.getId()) + ": input reference " +
                        std::to_string(reference) + " names no tensor before it");
      step.inputs.push_back(reference);
    }
    step.outputs = call.getOutputs().size();
    kept.outputs += step.outputs;
  }
  schedule_drops(sequence.getDead(), kept);
  stored_calls_ += calls.size();
  sequences_.emplace(sequence.getId(), std::move(kept));
}

void Session::schedule_drops(capnp::List<uint64_t>::Reader dead, Sequence& kept) {
  // Per reference: the call that makes it (an output) or 0 (an external), then the last reading it.
  // The externals' in a map of those read: their declared count is the client's word, no size.
  std::vector<std::size_t> last_output;
  std::unordered_map<uint64_t, std::size_t> last_external;
  for (std::size_t i = 0; i < kept.calls.size(); ++i) {
    last_output.resize(last_output.size() + kept.calls[i].outputs, i);
    for (uint64_t reference : kept.calls[i].inputs) {
      if ((reference & kInternal) != 0) {
        last_output[reference & ~kInternal] = i;
      } else {
        last_external[reference] = i;
      }
    }
  }
  std::set<uint64_t> seen;
  for (uint64_t reference : dead) {
    const bool internal = (reference & kInternal) != 0;
    const uint64_t index = reference & ~kInternal;
    if ((internal ? index >= kept.outputs : index >= kept.externals) ||
        !seen.insert(reference).second || kept.calls.empty())
      throw Violation("sequence: dead reference " + std::to_string(reference) +
                      " names no tensor of the sequence, or is named twice");
    const auto read = last_external.find(index);
    const std::size_t after =
        internal ? last_output[index] : (read == last_external.end() ? 0 : read->second);
    kept.calls[after].drops.push_back(reference);
  }
}

void Session::replay(proto::Replay::Reader replay) {
  require_ready();
  const auto found = sequences_.find(replay.getSequence());
  if (found == sequences_.end())
    throw Violation("unknown sequence " + std::to_string(replay.getSequence()));
  const Sequence& sequence = found->second;
  const auto externals = replay.getInputs();
  if (externals.size() != sequence.externals)
    throw Violation("sequence " + std::to_string(replay.getSequence()) + " takes " +
                    std::to_string(sequence.externals) + " tensors, the replay passes " +
                    std::to_string(externals.size()));
  budget_.start_batch();
  uint64_t next_output = replay.getFirstOutput();
  if (next_output + sequence.outputs < next_output)
    throw Violation("replay: output ids overflow from " + std::to_string(next_output));
  const auto id_of = [&](uint64_t reference) {
    return (reference & kInternal) != 0 ? replay.getFirstOutput() + (reference & ~kInternal)
                                        : externals[static_cast<unsigned>(reference)];
  };
  std::vector<uint64_t> inputs;
  std::vector<uint64_t> outputs;
  for (const SequenceCall& step : sequence.calls) {
    inputs.clear();
    for (uint64_t reference : step.inputs)
      inputs.push_back(id_of(reference));
    outputs.clear();
    for (std::size_t k = 0; k < step.outputs; ++k)
      outputs.push_back(next_output++);
    run_op(step.op, inputs, outputs);
    for (uint64_t reference : step.drops)
      forget(id_of(reference));
  }
  shared_.replays.fetch_add(1);
}

void Session::fail_outputs(std::span<const uint64_t> outputs, const std::string& failure) {
  if (pending_failure_.empty()) pending_failure_ = failure;
  for (uint64_t id : outputs)
    store(id, Entry{{}, failure, 0});
}

void Session::run_op(const ir::Op& op, std::span<const uint64_t> input_ids,
                     std::span<const uint64_t> output_ids) {
  std::vector<TensorHandle> inputs;
  std::vector<ir::TensorMeta> metas;
  std::string failure;
  for (uint64_t id : input_ids) {
    const Entry& input = entry(id);
    if (!input.failure.empty() && failure.empty()) failure = input.failure;
    inputs.push_back(input.tensor);
    if (input.failure.empty()) metas.push_back({input.tensor.shape(), input.tensor.dtype()});
  }
  for (uint64_t id : output_ids)
    require_new(id);
  const ServeOptions& limits = shared_.options;
  if (tensors_.size() + output_ids.size() > limits.max_tensors_per_session)
    throw Violation("the session holds " + std::to_string(tensors_.size()) +
                    " tensors, the server's limit is " +
                    std::to_string(limits.max_tensors_per_session));
  if (!failure.empty()) return fail_outputs(output_ids, failure);
  try {
    // The one inference on the server: it checks the op, and what it returns runs the op.
    ir::OutputMetas outputs = ir::infer(op, metas);
    if (outputs.size() != output_ids.size())
      throw Violation("op '" + ir::name(op) + "' has " + std::to_string(outputs.size()) +
                      " outputs, the request names " + std::to_string(output_ids.size()));
    std::size_t bytes = 0;
    for (const ir::TensorMeta& meta : outputs)
      bytes += static_cast<std::size_t>(*checked_tensor_bytes(meta.shape, meta.dtype));
    if (bytes > limits.max_session_bytes - std::min(bytes_, limits.max_session_bytes))
      throw ExecutionError("[remote] '" + ir::name(op) + "' needs " + std::to_string(bytes) +
                           " bytes; the session holds " + std::to_string(bytes_) +
                           " of the server's limit of " + std::to_string(limits.max_session_bytes));
    budget_.spend(op, metas, outputs);
    const ops::Handles results =
        tensor::run_inferred(op, *device_, context_, inputs, std::move(outputs));
    for (std::size_t i = 0; i < results.size(); ++i) {
      const TensorHandle& result = results[i];
      store(output_ids[i],
            Entry{result,
                  {},
                  static_cast<std::size_t>(*checked_tensor_bytes(result.shape(), result.dtype()))});
    }
  } catch (const Error& e) {
    fail_outputs(output_ids, e.what());
  }
}

void Session::upload(proto::Upload::Reader upload) {
  require_ready();
  require_new(upload.getId());
  const auto meta = upload.getMeta();
  Shape shape = wire::decode_shape(meta);
  const DType dtype = wire::decode_dtype(meta);
  const std::optional<int64_t> bytes = checked_tensor_bytes(shape, dtype);
  if (!bytes)
    throw Violation("upload: tensor " + ir::rules::concat(shape, " ", dtype) + " is not valid");
  const auto size = static_cast<std::size_t>(*bytes);
  const ServeOptions& limits = shared_.options;
  // Checked before a byte of it is read or allocated.
  if (size > limits.max_session_bytes - std::min(bytes_, limits.max_session_bytes) ||
      tensors_.size() >= limits.max_tensors_per_session)
    throw Violation("upload: tensor " + ir::rules::concat(shape, " ", dtype) + " of " +
                    std::to_string(size) + " bytes is over the session's limits (it holds " +
                    std::to_string(bytes_) + " of " + std::to_string(limits.max_session_bytes) +
                    " bytes, " + std::to_string(tensors_.size()) + " tensors)");
  // Read straight into a buffer of the device: on a CPU device memory its pools hold already (a
  // steady loop of uploads reuses the same pages), elsewhere host memory it copies from. The bytes
  // cross from the socket once, into memory nobody clears first.
  context_->lock_settings();  // as every tensor created on a device does
  const ir::TensorMeta tensor{std::move(shape), dtype};
  enum class Stage { Allocating, Reading, Read } stage = Stage::Allocating;
  try {
    backend::BufferPtr buffer = context_->write_from(tensor, [&](std::span<std::byte> bytes) {
      stage = Stage::Reading;
      channel_.receive_bytes(bytes);
      stage = Stage::Read;
      if (dtype == DType::Bool) detail::check_bool_bytes(bytes, "upload");
    });
    store(upload.getId(),
          Entry{detail::make_handle(*device_, context_, tensor, std::move(buffer)), {}, size});
  } catch (const Error& e) {
    if (stage == Stage::Reading) throw;  // the stream failed: the connection ends
    // The device could not take the tensor: its bytes are still on the stream.
    if (stage == Stage::Allocating) discard_bytes(size);
    if (pending_failure_.empty()) pending_failure_ = e.what();
    store(upload.getId(), Entry{{}, e.what(), 0});
  }
}

void Session::discard_bytes(std::size_t count) {
  std::vector<std::byte> scratch(std::min<std::size_t>(count, std::size_t{1} << 16));
  for (std::size_t left = count; left > 0; left -= std::min(left, scratch.size()))
    channel_.receive_bytes(std::span(scratch).first(std::min(left, scratch.size())));
}

/// Releases a DLManagedTensor (its deleter, once).
struct ReleaseShared {
  void operator()(DLManagedTensor* shared) const { shared->deleter(shared); }
};
using SharedTensor = std::unique_ptr<DLManagedTensor, ReleaseShared>;

/// tensor's memory, where it is host memory in row-major order already (a CPU device's
/// contiguous tensor); null otherwise (a GPU's tensor, a view).
SharedTensor row_major_memory(const TensorHandle& tensor) {
  SharedTensor shared;
  try {
    shared.reset(interop::to_dlpack(tensor));
  } catch (const InvalidArgument&) {  // memory off the host
    return nullptr;
  }
  const DLTensor& t = shared->dl_tensor;
  int64_t expected = 1;
  for (int32_t d = t.ndim; d-- > 0;) {
    if (t.shape[d] != 1 && t.strides[d] != expected) return nullptr;
    expected *= t.shape[d];
  }
  return shared;
}

void Session::download(uint64_t id) {
  require_ready();
  const Entry& found = entry(id);
  if (!found.failure.empty()) return reply_error(found.failure);
  capnp::MallocMessageBuilder message;
  wire::encode_meta(found.tensor.shape(), found.tensor.dtype(),
                    message.initRoot<proto::Reply>().initMeta());
  // Sent from where the tensor lies when it can be (no copy), else through the host. Either may
  // compute a queued value first, and a device failure then is the client's error reply.
  SharedTensor shared;
  TensorData data;
  try {
    shared = row_major_memory(found.tensor);
    if (!shared) data = ops::into_data(found.tensor);
  } catch (const Error& e) {
    return reply_error(e.what());
  }
  if (!shared) return channel_.send(message, data.bytes());
  const auto bytes =
      static_cast<std::size_t>(*checked_tensor_bytes(found.tensor.shape(), found.tensor.dtype()));
  channel_.send(message, {static_cast<const std::byte*>(shared->dl_tensor.data), bytes});
}

void Session::release(capnp::List<uint64_t>::Reader ids) {
  require_ready();
  for (uint64_t id : ids)
    forget(id);
}

void Session::forget(uint64_t id) {
  const auto found = tensors_.find(id);
  if (found == tensors_.end()) throw Violation("release of unknown tensor " + std::to_string(id));
  bytes_ -= found->second.bytes;
  shared_.bytes.fetch_sub(found->second.bytes);
  tensors_.erase(found);
}

void Session::sync() {
  require_ready();
  try {
    device_->sync();
  } catch (const Error& e) {
    if (pending_failure_.empty()) pending_failure_ = e.what();
  }
  if (pending_failure_.empty()) return reply_ok();
  reply_error(std::exchange(pending_failure_, {}));
}

void Session::memory_usage() {
  require_ready();
  capnp::MallocMessageBuilder message;
  auto usage = message.initRoot<proto::Reply>().initUsage();
  if (const std::optional<MemoryPoolUsage> found = device_->memory_pool_usage()) {
    usage.setAvailable(true);
    usage.setBytesInUse(found->bytes_in_use);
    usage.setBytesPadding(found->bytes_padding);
    usage.setBytesReserved(found->bytes_reserved);
    usage.setNumberAllocs(found->number_allocs);
  }
  channel_.send(message);
}

void Session::settings() {
  require_ready();
  capnp::MallocMessageBuilder message;
  wire::encode_settings(device_->settings(), message.initRoot<proto::Reply>().initSettings());
  channel_.send(message);
}

void Session::configure(proto::Settings::Reader settings) {
  require_ready();
  const DeviceSettings wanted = wire::decode_settings(settings);
  DeviceConfig config(wanted.float_dtype, wanted.int_dtype);
  config.with_f32_matmul_precision(wanted.f32_matmul_precision)
      .with_graph_replay(wanted.graph_replay);
  try {
    device_->configure(config);
  } catch (const DeviceError& e) {
    capnp::MallocMessageBuilder message;
    auto refusal = message.initRoot<proto::Reply>().initConfigureError();
    refusal.setKind(static_cast<uint8_t>(e.kind()));
    refusal.setMessage(e.what());
    return channel_.send(message);
  }
  shared_.log(channel_.stream().peer() + ": configured " + device_name(device_->as_dispatch()));
  reply_ok();
}

void Session::timestamp(uint64_t id) {
  require_ready();
  if (timestamps_.contains(id))
    throw Violation("timestamp " + std::to_string(id) + " exists already");
  if (timestamps_.size() >= kMaxTimestamps)
    throw Violation("the session keeps " + std::to_string(timestamps_.size()) +
                    " timestamps, the server's limit");
  Timestamp point;
  try {
    device_->flush();
    point.device = context_->record_timestamp();
    if (!point.device) device_->sync();
  } catch (const Error& e) {  // an op failed: the next sync or download reports it
    if (pending_failure_.empty()) pending_failure_ = e.what();
  }
  point.wall = std::chrono::steady_clock::now();
  timestamps_.emplace(id, std::move(point));
}

const Timestamp& Session::kept_timestamp(uint64_t id) const {
  const auto found = timestamps_.find(id);
  if (found == timestamps_.end()) throw Violation("unknown timestamp " + std::to_string(id));
  return found->second;
}

void Session::elapsed(proto::Elapsed::Reader elapsed) {
  require_ready();
  const Timestamp& from = kept_timestamp(elapsed.getFrom());
  const Timestamp& to = kept_timestamp(elapsed.getTo());
  double seconds = 0;
  try {
    seconds = from.device && to.device ? to.device->seconds_since(*from.device)
                                       : std::chrono::duration<double>(to.wall - from.wall).count();
  } catch (const Error& e) {
    return reply_error(e.what());
  }
  capnp::MallocMessageBuilder message;
  message.initRoot<proto::Reply>().setSeconds(seconds);
  channel_.send(message);
}

void Session::release_timestamps(capnp::List<uint64_t>::Reader ids) {
  require_ready();
  for (uint64_t id : ids)
    if (timestamps_.erase(id) == 0)
      throw Violation("release of unknown timestamp " + std::to_string(id));
}

/// Whether backend runs op, a fused op, on inputs in a kernel of its own. A backend is asked only
/// about inputs its op's rule accepts (as locally): for others the answer is no, and the client's
/// composite then reports what is wrong with them.
bool backend_fuses(backend::Backend& backend, const ir::Op& op,
                   std::span<const ir::TensorMeta> inputs) {
  const auto* attention = std::get_if<ir::Attention>(&op);
  if (attention == nullptr && !ir::is_fused_row_op(op))
    throw Violation("fuses: '" + ir::name(op) + "' is not a fused op");
  try {
    (void)ir::infer(op, inputs);
  } catch (const InvalidArgument&) {
    return false;
  }
  return attention != nullptr ? backend.runs_fused_attention(*attention, inputs)
                              : backend.runs_fused_rows(op, inputs);
}

void Session::fuses(proto::Fuses::Reader query) {
  require_ready();
  const ir::Op op = decoded(query.getCall());
  std::vector<ir::TensorMeta> inputs;
  for (proto::Meta::Reader meta : query.getInputs())
    inputs.push_back({wire::decode_shape(meta), wire::decode_dtype(meta)});
  capnp::MallocMessageBuilder message;
  message.initRoot<proto::Reply>().setAnswer(backend_fuses(context_->backend(), op, inputs));
  channel_.send(message);
}

void Session::reply_ok() {
  capnp::MallocMessageBuilder message;
  message.initRoot<proto::Reply>().setOk();
  channel_.send(message);
}

void Session::reply_error(const std::string& text) {
  capnp::MallocMessageBuilder message;
  message.initRoot<proto::Reply>().setError(text);
  channel_.send(message);
}

void Session::release_all() noexcept {
  shared_.bytes.fetch_sub(bytes_);
  tensors_.clear();
  bytes_ = 0;
  if (device_) {
    shared_.sessions.fetch_sub(1);
    // Gives the freed pages back, so that the server's usage returns to its baseline.
    try {
      device_->sync();
      device_->memory_cleanup();
    } catch (const Error&) {
    }
  }
}

}  // namespace

void serve_stream(wire::Stream& stream, Shared& shared,
                  const std::function<void()>& greeted) noexcept {
  const std::string& peer = stream.peer();
  try {
    wire::Channel channel(stream, shared.options.max_message_bytes);
    Session session(channel, shared, greeted);
    try {
      session.run();
    } catch (const Violation& e) {
      shared.log(peer + ": refused: " + e.what());
      wire::send_error(channel, e.what());
    } catch (const InvalidArgument& e) {  // malformed framing or message
      shared.log(peer + ": refused: " + e.what());
      wire::send_error(channel, e.what());
    }
  } catch (const ExecutionError& e) {
    shared.log(peer + ": disconnected (" + e.what() + ")");
  } catch (const std::exception& e) {
    shared.log(peer + ": " + std::string(kClosedAfterAnError) + e.what());
  } catch (...) {
    shared.log(peer + ": " + std::string(kClosedAfterAnError) + "unknown");
  }
}

void serve_connection(wire::Socket& socket, Shared& shared,
                      const std::function<void()>& greeted) noexcept {
  const std::string peer = socket.peer();
  shared.log(peer + ": connected");
  try {
    socket.set_timeout(shared.options.idle_timeout);
    std::unique_ptr<wire::TlsStream> tls;
    if (shared.tls) tls = std::make_unique<wire::TlsStream>(socket, *shared.tls, "");
    serve_stream(tls ? static_cast<wire::Stream&>(*tls) : socket, shared, greeted);
  } catch (const ExecutionError& e) {  // the TLS handshake failed
    shared.log(peer + ": disconnected (" + e.what() + ")");
  } catch (const std::exception& e) {
    shared.log(peer + ": " + std::string(kClosedAfterAnError) + e.what());
  }
  // The client sees the end at once; the descriptor itself closes when the server reaps this
  // connection, so that stop() never shuts down a descriptor reused by another.
  socket.shutdown();
}

}  // namespace ember::serve
