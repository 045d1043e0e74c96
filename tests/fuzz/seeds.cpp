// Writes the fuzz targets' seed corpora with ember's own writers (docs/fuzzing.md):
//
//   ember_fuzz_seeds DIR   writes DIR/safetensors/*, DIR/idx/*, DIR/device_name/* and DIR/npy/*
//                          (and DIR/remote_message/* and DIR/graph_text/* with Cap'n Proto,
//                          DIR/onnx_model/* with libonnx-dev)
//
// tests/fuzz/corpus/ holds its output, committed: a few small valid files per target, from
// which libFuzzer's mutations reach the parsers' deeper checks sooner than from nothing.
#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
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

#include "graph/text_format.h"
#include "ir/ops.h"
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
  std::ofstream(dir / "session", std::ios::binary) << session;
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
    fs::create_directories(root / "graph_text");
    write_graph_text_seeds(root / "graph_text");
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
