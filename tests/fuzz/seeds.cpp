// Writes the fuzz targets' seed corpora with ember's own writers (docs/fuzzing.md):
//
//   ember_fuzz_seeds DIR   writes DIR/safetensors/*, DIR/idx/*, DIR/device_name/* and DIR/npy/*
//                          (and DIR/remote_message/*, DIR/remote_session/*, DIR/tcp_store/* and
//                          DIR/graph_text/* with Cap'n Proto, DIR/onnx_model/* with libonnx-dev)
//
// tests/fuzz/corpus/ holds its output, committed: a few small valid files per target, from
// which libFuzzer's mutations reach the parsers' deeper checks sooner than from nothing.
#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ember/data/idx.h"
#include "ember/dispatch_device.h"
#include "ember/record/numpy.h"
#include "ember/record/safetensors.h"

#ifdef EMBER_FUZZ_REMOTE
#include <capnp/message.h>
#include <capnp/serialize.h>

#include "collective/store_protocol.h"
#include "graph/text_format.h"
#include "ir/ops.h"
#include "memory_stream.h"
#include "wire/meta_codec.h"
#include "wire/op_codec.h"
#include "wire/protocol.capnp.h"
#endif

#ifdef EMBER_FUZZ_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace {

namespace fs = std::filesystem;
using ember::DType;
using ember::Shape;
using ember::TensorData;

/// values 0, -0.5, 1, -1.5, ... converted to dtype.
TensorData iota(Shape shape, DType dtype) {
  std::vector<double> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double half = static_cast<double>(i) / 2;  // zero, halves, and both signs
    values[i] = i % 2 == 0 ? half : -half;
  }
  return TensorData(values, std::move(shape), dtype);
}

void write_safetensors_seeds(const fs::path& dir) {
  using ember::record::Record;
  ember::record::save_safetensors(Record{}, dir / "empty.safetensors");
  ember::record::save_safetensors(
      Record{{{"weight", iota(Shape{2, 3}, DType::F32)}}, {{"format", "pt"}}},
      dir / "f32_with_metadata.safetensors");
  Record every_dtype;
  for (const DType dtype : ember::kAllDTypes) {
    std::ostringstream name;
    name << "t_" << dtype;
    every_dtype.tensors.push_back({name.str(), iota(Shape{2}, dtype)});
  }
  ember::record::save_safetensors(every_dtype, dir / "every_dtype.safetensors");
  ember::record::save_safetensors(
      Record{{{"scalar", iota(Shape{}, DType::I64)}, {"empty", iota(Shape{0, 4}, DType::F16)}}, {}},
      dir / "scalar_and_empty.safetensors");
}

void write_npy_seeds(const fs::path& dir) {
  namespace record = ember::record;
  for (const DType dtype : ember::kAllDTypes) {
    if (dtype == DType::BF16) continue;  // NumPy has no bfloat16
    std::ostringstream name;
    name << dtype << "_2x3.npy";
    record::save_npy(dir / name.str(), iota(Shape{2, 3}, dtype));
  }
  record::save_npy(dir / "i64_scalar.npy", iota(Shape{}, DType::I64));
  record::save_npy(dir / "f16_0x4.npy", iota(Shape{0, 4}, DType::F16));
  // The same header with the descr big-endian and fortran_order True (one byte shorter, padded
  // with a space): the byte swap and the transpose.
  std::vector<std::byte> swapped = record::serialize_npy(iota(Shape{3, 2}, DType::I32));
  std::string text(reinterpret_cast<const char*>(swapped.data()), swapped.size());
  text.replace(text.find("'<i4'"), 5, "'>i4'");
  text.replace(text.find("False"), 5, "True ");
  std::ofstream(dir / "i32_3x2_big_endian_fortran.npy", std::ios::binary) << text;
  const std::vector<record::NamedData> arrays = {{"weight", iota(Shape{2, 2}, DType::F32)},
                                                 {"step", iota(Shape{1}, DType::I64)}};
  record::save_npz(dir / "stored.npz", arrays);
}

void write_idx_seeds(const fs::path& dir) {
  struct Seed {
    const char* name;
    TensorData data;
    bool gzip;
  };
  const Seed seeds[] = {
      {"u8_2x3", iota(Shape{2, 3}, DType::U8), false},
      {"i8_3.gz", iota(Shape{3}, DType::I8), true},
      {"i16_2", iota(Shape{2}, DType::I16), false},
      {"i32_2x1.gz", iota(Shape{2, 1}, DType::I32), true},
      {"f32_2", iota(Shape{2}, DType::F32), false},
      {"f64_1x1x1.gz", iota(Shape{1, 1, 1}, DType::F64), true},
      {"u8_scalar", iota(Shape{}, DType::U8), false},
      {"u8_0x28.gz", iota(Shape{0, 28}, DType::U8), true},
      {"u8_1x2x1x2", iota(Shape{1, 2, 1, 2}, DType::U8), false},
  };
  for (const Seed& seed : seeds)
    ember::data::write_idx(dir / seed.name, seed.data, seed.gzip);
}

void write_device_name_seeds(const fs::path& dir) {
  using ember::DeviceKind;
  using ember::LibTorchDevice;
  using ember::WgpuDevice;
  const ember::DispatchDevice devices[] = {
      ember::CpuDevice{},
      ember::FlexDevice{},
      ember::NdArrayDevice{},
      ember::CaptureDevice{},
      ember::CudaDevice{1},
      ember::RocmDevice{0},
      WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::default_device()},
      WgpuDevice{WgpuDevice::Api::Vulkan, DeviceKind::discrete_gpu(2)},
      WgpuDevice{WgpuDevice::Api::Metal, DeviceKind::integrated_gpu(0)},
      WgpuDevice{WgpuDevice::Api::WebGpu, DeviceKind::virtual_gpu(1)},
      WgpuDevice{WgpuDevice::Api::Wgpu, DeviceKind::cpu()},
      LibTorchDevice{LibTorchDevice::Target::Cpu},
      LibTorchDevice{LibTorchDevice::Target::Cuda, 3},
      LibTorchDevice{LibTorchDevice::Target::Mps},
      ember::RemoteDevice{"localhost:7000", 1, {}},
  };
  for (const ember::DispatchDevice& device : devices) {
    std::string name = ember::device_name(device);
    std::string file = name;
    for (char& c : file) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    std::ofstream(dir / file, std::ios::binary) << name;
  }
}

#ifdef EMBER_FUZZ_REMOTE
/// Appends request, framed as the remote protocol sends it, to stream.
template <typename Fill>
void append_request(std::string& stream, Fill&& fill) {
  capnp::MallocMessageBuilder message;
  fill(message.initRoot<ember::wire::proto::Request>());
  const auto words = capnp::messageToFlatArray(message);
  const auto bytes = words.asChars();
  stream.append(bytes.begin(), bytes.size());
}

/// Appends the question whether the device runs a layer_norm of [2, 3] f32 rows fused.
void append_fuses(std::string& stream) {
  append_request(stream, [](ember::wire::proto::Request::Builder r) {
    auto fuses = r.initFuses();
    ember::wire::encode_op(ember::ir::LayerNorm{1e-5, false, true, true}, fuses.initCall());
    auto inputs = fuses.initInputs(3);
    ember::wire::encode_meta(Shape{2, 3}, DType::F32, inputs[0]);
    ember::wire::encode_meta(Shape{3}, DType::F32, inputs[1]);
    ember::wire::encode_meta(Shape{3}, DType::F32, inputs[2]);
  });
}

void write_remote_message_seeds(const fs::path& dir) {
  namespace ir = ember::ir;
  using Request = ember::wire::proto::Request;
  std::string session;
  append_request(session, [](Request::Builder r) {
    r.initHello().setVersion(ember::wire::proto::PROTOCOL_VERSION);
  });
  append_request(session, [](Request::Builder r) { r.setOpen(0); });
  append_request(session, [](Request::Builder r) {
    auto upload = r.initUpload();
    upload.setId(1);
    ember::wire::encode_meta(Shape{2, 3}, DType::F32, upload.initMeta());
  });
  session.append(24, '\0');  // the upload's bytes follow its request
  const ir::Op ops[] = {
      ir::Binary{ir::BinaryOp::Add},
      ir::Reduce{ir::ReduceOp::Sum, 1, 0, DType::I64},
      ir::Slice{{{0, 2, 1}, {1, 3, 1}}},
      ir::Full{Shape{4}, DType::F32, ember::Scalar(1.5)},
      ir::Pool{ir::PoolOp::Max, {2}, {1}, {0}, {1}},
      ir::Conv{{{1}, {0}, {1}, {0}, 1, false}},
  };
  append_request(session, [&](Request::Builder r) {
    auto calls = r.initRun(std::size(ops));
    for (unsigned i = 0; i < std::size(ops); ++i) {
      ember::wire::encode_op(ops[i], calls[i]);
      calls[i].initInputs(2).set(0, 1);
      calls[i].initOutputs(1).set(0, 10 + i);
    }
  });
  append_request(session, [](Request::Builder r) { r.setDownload(10); });
  append_fuses(session);
  std::ofstream(dir / "session", std::ios::binary) << session;
}

/// Appends an upload of data and its bytes to session.
void append_upload(std::string& session, uint64_t id, const TensorData& data) {
  append_request(session, [&](ember::wire::proto::Request::Builder r) {
    auto upload = r.initUpload();
    upload.setId(id);
    ember::wire::encode_meta(data.shape(), data.dtype(), upload.initMeta());
  });
  const auto bytes = data.bytes();
  session.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

/// Appends a run of op on inputs, its outputs taking ids outputs.
void append_run(std::string& session, const ember::ir::Op& op, std::vector<uint64_t> inputs,
                std::vector<uint64_t> outputs) {
  append_request(session, [&](ember::wire::proto::Request::Builder r) {
    auto call = r.initRun(1)[0];
    ember::wire::encode_op(op, call);
    call.setInputs(kj::arrayPtr(inputs.data(), inputs.size()));
    call.setOutputs(kj::arrayPtr(outputs.data(), outputs.size()));
  });
}

/// An op call of a session seed: the op, the ids it reads, and its first output id (the others
/// follow).
struct SeedCall {
  ember::ir::Op op;
  std::vector<uint64_t> inputs;
  uint64_t first_output;
  uint32_t outputs = 1;
};

/// One call of most op families on small tensors: ids 1 ([2, 3] f32), 2 ([2] i64: 0, 1), 3
/// ([1, 1, 4, 4] f32) and 4 ([1, 1, 2, 2] f32) are uploaded first; each output id is new.
std::vector<SeedCall> seed_calls() {
  namespace ir = ember::ir;
  using ember::Scalar;
  const ir::Pool max_pool{ir::PoolOp::Max, {2, 2}, {2, 2}, {0, 0}, {1, 1}};
  return {
      {ir::Unary{ir::UnaryOp::Exp}, {1}, 10},
      {ir::Compare{ir::CompareOp::Greater}, {1, 10}, 11},
      {ir::Where{}, {11, 1, 10}, 12},
      {ir::Cast{DType::I32}, {1}, 13},
      {ir::Permute{{1, 0}}, {1}, 14},
      {ir::Matmul{}, {1, 14}, 15},
      {ir::Reshape{Shape{3, 2}}, {1}, 16},
      {ir::Flip{{0}}, {1}, 17},
      {ir::Reduce{ir::ReduceOp::Sum, 0, 0, DType::I64}, {1}, 18},
      {ir::Expand{Shape{4, 3}}, {18}, 19},
      {ir::Cat{0}, {1, 17}, 20},
      {ir::Select{0}, {1, 2}, 21},
      {ir::Reshape{Shape{2, 1}}, {2}, 22},
      {ir::Gather{1}, {1, 22}, 23},
      {ir::Scatter{1, ir::IndexUpdate::Assign}, {1, 22, 23}, 24},
      {ir::Sort{1, true, DType::I64}, {1}, 25, 2},
      {ir::Cumulative{ir::CumulativeOp::Sum, 1}, {1}, 27},
      {ir::Activation{ir::ActivationOp::Relu}, {1}, 28},
      {ir::Softmax{1, true}, {1}, 29},
      {ir::Conv{{{1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, false}}, {3, 4}, 30},
      {max_pool, {3}, 31, 2},
      {ir::AdaptivePool{ir::PoolOp::Avg, {2, 2}, DType::I64}, {3}, 33},
      {ir::Interpolate{ir::InterpolateMode::Linear, {8, 8}, false, {}}, {3}, 34},
      {ir::Arange{0, 5, 1, DType::I64}, {}, 35},
      {ir::SliceAssign{{{0, 1, 1}, {0, 3, 1}}}, {1, 18}, 36},
      {ir::SelectAssign{0, ir::IndexUpdate::Add}, {1, 2, 1}, 37},
      {ir::MaskFill{Scalar(0.0)}, {1, 11}, 38},
      {ir::BinaryScalar{ir::BinaryOp::Mul, Scalar(2.0), false}, {1}, 39},
      {ir::Reshape{Shape{1, 2, 3}}, {1}, 40},
      {ir::Attention{0.5, true}, {40, 40, 40}, 41, 2},
  };
}

void append_seed_uploads(std::string& session) {
  append_upload(session, 1, iota(Shape{2, 3}, DType::F32));
  append_upload(session, 2, TensorData(std::vector<int64_t>{0, 1}, Shape{2}));
  append_upload(session, 3, iota(Shape{1, 1, 4, 4}, DType::F32));
  append_upload(session, 4, iota(Shape{1, 1, 2, 2}, DType::F32));
}

/// seed_calls as one sequence over the uploads (externals 0 to 3, ids 1 to 4), its outputs
/// referenced by index; the outputs nothing but the next call reads are dead.
void append_seed_sequence(std::string& session, uint64_t id) {
  constexpr uint64_t kOutput0 = uint64_t{1} << 63;
  const std::vector<SeedCall> calls = seed_calls();
  std::map<uint64_t, uint64_t> reference;  // id -> reference
  for (uint64_t external = 0; external < 4; ++external)
    reference[external + 1] = external;
  append_request(session, [&](ember::wire::proto::Request::Builder r) {
    auto sequence = r.initDefine();
    sequence.setId(id);
    sequence.setExternals(4);
    auto encoded = sequence.initCalls(static_cast<unsigned>(calls.size()));
    uint64_t next = 0;
    for (unsigned i = 0; i < calls.size(); ++i) {
      ember::wire::encode_op(calls[i].op, encoded[i]);
      auto inputs = encoded[i].initInputs(static_cast<unsigned>(calls[i].inputs.size()));
      for (unsigned k = 0; k < calls[i].inputs.size(); ++k)
        inputs.set(k, reference.at(calls[i].inputs[k]));
      encoded[i].initOutputs(calls[i].outputs);
      for (uint32_t k = 0; k < calls[i].outputs; ++k)
        reference[calls[i].first_output + k] = kOutput0 + next++;
    }
    const std::vector<uint64_t> dead{reference.at(14), reference.at(22), reference.at(40)};
    sequence.setDead(kj::arrayPtr(dead.data(), dead.size()));
  });
}

/// Sessions of a client past its handshake, which ember_fuzz_remote_session performs itself.
void write_remote_session_seeds(const fs::path& dir) {
  namespace ir = ember::ir;
  using Request = ember::wire::proto::Request;
  std::string plain;  // upload, ops, download, release, sync
  append_upload(plain, 1, iota(Shape{2, 3}, DType::F32));
  append_run(plain, ir::Binary{ir::BinaryOp::Add}, {1, 1}, {2});
  append_run(plain, ir::Reduce{ir::ReduceOp::Sum, 1, 0, DType::F32}, {2}, {3});
  append_run(plain, ir::Full{Shape{4}, DType::I64, ember::Scalar(3)}, {}, {4});
  append_request(plain, [](Request::Builder r) { r.setDownload(3); });
  append_request(plain, [](Request::Builder r) {
    auto release = r.initRelease(2);
    release.set(0, 1);
    release.set(1, 4);
  });
  append_request(plain, [](Request::Builder r) { r.setSync(); });
  std::ofstream(dir / "upload_run_download", std::ios::binary) << plain;

  // A sequence x * x + x, its product and its input dead after the add, replayed twice.
  std::string sequences;
  constexpr uint64_t kOutput0 = uint64_t{1} << 63;
  append_upload(sequences, 1, iota(Shape{2}, DType::F32));
  append_request(sequences, [](Request::Builder r) {
    auto sequence = r.initDefine();
    sequence.setId(7);
    sequence.setExternals(1);
    auto calls = sequence.initCalls(2);
    ember::wire::encode_op(ir::Binary{ir::BinaryOp::Mul}, calls[0]);
    calls[0].initInputs(2);  // external 0, twice
    calls[0].initOutputs(1);
    ember::wire::encode_op(ir::Binary{ir::BinaryOp::Add}, calls[1]);
    auto inputs = calls[1].initInputs(2);
    inputs.set(0, kOutput0);
    calls[1].initOutputs(1);
    auto dead = sequence.initDead(1);
    dead.set(0, kOutput0);
  });
  for (const std::pair<uint64_t, uint64_t>& step :
       {std::pair<uint64_t, uint64_t>{1, 10}, {11, 20}}) {
    append_request(sequences, [&](Request::Builder r) {
      auto replay = r.initReplay();
      replay.setSequence(7);
      replay.initInputs(1).set(0, step.first);  // the input, then the first output's id
      replay.setFirstOutput(step.second);
    });
  }
  append_request(sequences, [](Request::Builder r) { r.setDownload(21); });
  std::ofstream(dir / "define_replay", std::ios::binary) << sequences;

  // The device's requests: settings, a profile window's timestamps, memory, seed.
  std::string device;
  append_request(device, [](Request::Builder r) { r.setListDevices(); });
  append_request(device, [](Request::Builder r) { r.setSettings(); });
  append_request(device, [](Request::Builder r) { r.setSeed(42); });
  append_request(device, [](Request::Builder r) { r.setTimestamp(1); });
  append_run(device, ir::Random{Shape{3}, DType::F32, ember::Distribution{}, 7}, {}, {5});
  append_request(device, [](Request::Builder r) { r.setTimestamp(2); });
  append_request(device, [](Request::Builder r) {
    auto elapsed = r.initElapsed();
    elapsed.setFrom(1);
    elapsed.setTo(2);
  });
  append_request(device, [](Request::Builder r) {
    auto release = r.initReleaseTimestamps(2);
    release.set(0, 1);
    release.set(1, 2);
  });
  append_fuses(device);
  append_request(device, [](Request::Builder r) { r.setMemoryUsage(); });
  append_request(device, [](Request::Builder r) { r.setMemoryCleanup(); });
  std::ofstream(dir / "device_requests", std::ios::binary) << device;

  // Most op families, as runs, then as a sequence replayed twice.
  std::string ops;
  append_seed_uploads(ops);
  for (const SeedCall& call : seed_calls()) {
    std::vector<uint64_t> outputs(call.outputs);
    for (uint32_t k = 0; k < call.outputs; ++k)
      outputs[k] = call.first_output + k;
    append_run(ops, call.op, call.inputs, outputs);
  }
  append_request(ops, [](Request::Builder r) { r.setDownload(41); });
  append_request(ops, [](Request::Builder r) { r.setSync(); });
  std::ofstream(dir / "every_op_family", std::ios::binary) << ops;
  std::string replayed;
  append_seed_uploads(replayed);
  append_seed_sequence(replayed, 3);
  for (const uint64_t first : {100, 200}) {
    append_request(replayed, [&](Request::Builder r) {
      auto replay = r.initReplay();
      replay.setSequence(3);
      const std::vector<uint64_t> inputs{1, 2, 3, 4};
      replay.setInputs(kj::arrayPtr(inputs.data(), inputs.size()));
      replay.setFirstOutput(first);
    });
  }
  append_request(replayed, [](Request::Builder r) { r.setSync(); });
  std::ofstream(dir / "every_op_family_replayed", std::ios::binary) << replayed;
}

/// A peer of the rendezvous store: Gloo's full mesh of two processes (each sets its addresses,
/// then gets the other's), one asking for a key nobody set, and a request of an unknown op.
void write_tcp_store_seeds(const fs::path& dir) {
  namespace store = ember::collective::store;
  const auto write = [&](const char* name, const std::vector<store::Request>& requests) {
    ember::fuzz::MemoryStream stream;  // a loop, read by nobody
    for (const store::Request& request : requests)
      store::write_request(stream, request);
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(stream.written_bytes().data()),
               static_cast<std::streamsize>(stream.written_bytes().size()));
  };
  const std::string address(136, '\x7f');  // a Gloo TCP address per peer
  write("full_mesh", {{store::Op::Set, "ember/rank_0", address + address},
                      {store::Op::Set, "ember/rank_1", address + address},
                      {store::Op::Get, "ember/rank_1", {}},
                      {store::Op::Get, "ember/rank_0", {}}});
  write("missing_key", {{store::Op::Get, "ember/rank_7", {}}, {store::Op::Set, "", ""}});
  write("unknown_op", {{static_cast<store::Op>(3), "key", {}}});
}

/// Builds a graph node by node, each op's outputs from its rule (ir::infer).
class GraphSeed {
 public:
  std::size_t input(const std::string& name, Shape shape, DType dtype) {
    ember::detail::GraphNode node;
    node.kind = ember::detail::GraphNode::Kind::Input;
    node.name = name;
    node.outputs.push_back({std::move(shape), dtype});
    return add(std::move(node));
  }
  std::size_t constant(TensorData data) {
    ember::detail::GraphNode node;
    node.kind = ember::detail::GraphNode::Kind::Constant;
    node.outputs.push_back({data.shape(), data.dtype()});
    node.data = std::move(data);
    return add(std::move(node));
  }
  std::size_t op(ember::ir::Op op, std::vector<ember::detail::ValueRef> inputs) {
    ember::detail::GraphNode node;
    std::vector<ember::ir::TensorMeta> metas;
    for (const auto& input : inputs)
      metas.push_back(graph_.meta(input));
    node.outputs = ember::ir::infer(op, metas);
    node.op = std::move(op);
    node.inputs = std::move(inputs);
    return add(std::move(node));
  }
  void output(const std::string& name, ember::detail::ValueRef value) {
    graph_.outputs.push_back({name, value});
  }
  std::string text() const { return ember::detail::graph_to_text(graph_); }

 private:
  std::size_t add(ember::detail::GraphNode node) {
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.size() - 1;
  }
  ember::detail::GraphImpl graph_;
};

void write_graph_text_seeds(const fs::path& dir) {
  namespace ir = ember::ir;
  GraphSeed small;
  const auto x = small.input("x", Shape{2, 3}, DType::F32);
  const auto c = small.constant(iota(Shape{2, 3}, DType::F32));
  const auto sum = small.op(ir::Binary{ir::BinaryOp::Add}, {{x, 0}, {c, 0}});
  const auto sorted = small.op(ir::Sort{1, true, DType::I64}, {{sum, 0}});
  small.output("values", {sorted, 0});
  small.output("indices", {sorted, 1});
  std::ofstream(dir / "add_sort.txt", std::ios::binary) << small.text();

  GraphSeed conv;
  const auto images = conv.input("images", Shape{1, 1, 4, 4}, DType::F32);
  const auto weight = conv.constant(iota(Shape{2, 1, 3, 3}, DType::F32));
  const auto y =
      conv.op(ir::Conv{{{1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, false}}, {{images, 0}, {weight, 0}});
  const auto pooled = conv.op(ir::Pool{ir::PoolOp::Max, {2, 2}, {2, 2}, {0, 0}, {1, 1}}, {{y, 0}});
  const auto noise =
      conv.op(ir::Random{Shape{1, 2, 2, 2}, DType::F32, ember::Distribution::Default, 7}, {});
  const auto relu = conv.op(ir::Activation{ir::ActivationOp::Relu}, {{pooled, 0}});
  conv.output("y", {conv.op(ir::Binary{ir::BinaryOp::Mul}, {{relu, 0}, {noise, 0}}), 0});
  conv.output("indices", {pooled, 1});
  std::ofstream(dir / "conv_pool_random.txt", std::ios::binary) << conv.text();
}
#endif

#ifdef EMBER_FUZZ_ONNX
/// A model of opset 17: input x [1, 1, 4, 4] (the batch symbolic), a Conv with its weight as
/// raw_data, a Constant node of int64_data, a Reshape, and y.
::onnx::ModelProto onnx_seed_model() {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  ::onnx::OperatorSetIdProto& opset = *model.add_opset_import();
  opset.set_version(17);
  ::onnx::GraphProto& graph = *model.mutable_graph();
  ::onnx::ValueInfoProto& x = *graph.add_input();
  x.set_name("x");
  auto& x_type = *x.mutable_type()->mutable_tensor_type();
  x_type.set_elem_type(::onnx::TensorProto::FLOAT);
  x_type.mutable_shape()->add_dim()->set_dim_param("batch");
  for (int64_t dim : {1, 4, 4})
    x_type.mutable_shape()->add_dim()->set_dim_value(dim);
  ::onnx::TensorProto& w = *graph.add_initializer();
  w.set_name("w");
  w.set_data_type(::onnx::TensorProto::FLOAT);
  const TensorData weight = iota(Shape{2, 1, 3, 3}, DType::F32);
  for (int64_t dim : weight.shape().dims())
    w.add_dims(dim);
  w.set_raw_data(reinterpret_cast<const char*>(weight.bytes().data()), weight.bytes().size());
  ::onnx::NodeProto& conv = *graph.add_node();
  conv.set_op_type("Conv");
  conv.set_name("conv");
  conv.add_input("x");
  conv.add_input("w");
  conv.add_output("c");
  ::onnx::AttributeProto& pads = *conv.add_attribute();
  pads.set_name("pads");
  pads.set_type(::onnx::AttributeProto::INTS);
  for (int64_t pad : {1, 1, 1, 1})
    pads.add_ints(pad);
  ::onnx::NodeProto& shape = *graph.add_node();
  shape.set_op_type("Constant");
  shape.add_output("shape");
  ::onnx::AttributeProto& value = *shape.add_attribute();
  value.set_name("value");
  value.set_type(::onnx::AttributeProto::TENSOR);
  value.mutable_t()->set_data_type(::onnx::TensorProto::INT64);
  value.mutable_t()->add_dims(2);
  value.mutable_t()->add_int64_data(0);
  value.mutable_t()->add_int64_data(-1);
  ::onnx::NodeProto& reshape = *graph.add_node();
  reshape.set_op_type("Reshape");
  reshape.add_input("c");
  reshape.add_input("shape");
  reshape.add_output("y");
  ::onnx::ValueInfoProto& y = *graph.add_output();
  y.set_name("y");
  y.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  return model;
}

void write_onnx_model_seeds(const fs::path& dir) {
  ::onnx::ModelProto model = onnx_seed_model();
  std::ofstream(dir / "conv_reshape.onnx", std::ios::binary) << model.SerializeAsString();
  // The weight in a typed field, and a bias of every integer field's kind.
  ::onnx::TensorProto& w = *model.mutable_graph()->mutable_initializer(0);
  w.clear_raw_data();
  for (float value : iota(Shape{2, 1, 3, 3}, DType::F32).to_vector<float>())
    w.add_float_data(value);
  for (const auto type :
       {::onnx::TensorProto::INT32, ::onnx::TensorProto::UINT64, ::onnx::TensorProto::FLOAT16,
        ::onnx::TensorProto::DOUBLE, ::onnx::TensorProto::BOOL}) {
    ::onnx::TensorProto& extra = *model.mutable_graph()->add_initializer();
    extra.set_name("extra" + std::to_string(type));
    extra.set_data_type(type);
    extra.add_dims(2);
    for (int k = 0; k < 2; ++k) {
      if (type == ::onnx::TensorProto::UINT64) extra.add_uint64_data(k);
      if (type == ::onnx::TensorProto::DOUBLE) extra.add_double_data(k);
      if (type != ::onnx::TensorProto::UINT64 && type != ::onnx::TensorProto::DOUBLE)
        extra.add_int32_data(k);
    }
  }
  std::ofstream(dir / "typed_fields.onnx", std::ios::binary) << model.SerializeAsString();
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s DIR (writes DIR/safetensors, DIR/idx, DIR/device_name, DIR/npy)\n",
                 argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  try {
    for (const char* target : {"safetensors", "idx", "device_name", "npy"})
      fs::create_directories(root / target);
    write_safetensors_seeds(root / "safetensors");
    write_idx_seeds(root / "idx");
    write_device_name_seeds(root / "device_name");
    write_npy_seeds(root / "npy");
#ifdef EMBER_FUZZ_ONNX
    fs::create_directories(root / "onnx_model");
    write_onnx_model_seeds(root / "onnx_model");
#endif
#ifdef EMBER_FUZZ_REMOTE
    fs::create_directories(root / "remote_message");
    write_remote_message_seeds(root / "remote_message");
    fs::create_directories(root / "remote_session");
    write_remote_session_seeds(root / "remote_session");
    fs::create_directories(root / "tcp_store");
    write_tcp_store_seeds(root / "tcp_store");
    fs::create_directories(root / "graph_text");
    write_graph_text_seeds(root / "graph_text");
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
