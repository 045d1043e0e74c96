// The processes of a run joined through Gloo (Debian's libgloo-dev): its TCP transport, each
// process bound to the address it reaches the rendezvous store from, so that processes in other
// network namespaces or on other machines find each other without a host list.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <array>
#include <cstdlib>
#include <cstring>

#include "collective/dtype_dispatch.h"
#include "collective/process_link.h"
#include "collective/tcp_store.h"
#include "ember/error.h"

namespace ember::collective {
namespace {

/// A call as the processes compare it: the name's bytes, the argument, the dtype, the rank and
/// the dims.
constexpr std::size_t kNameWords = 2;
constexpr std::size_t kMaxRank = 16;
using Header = std::array<int64_t, kNameWords + 3 + kMaxRank>;

Header encode(const Call& call) {
  if (call.shape.rank() > kMaxRank || call.name.size() > kNameWords * 8) {
    throw InvalidArgument("[" + call.name + "] across processes a tensor has at most " +
                          std::to_string(kMaxRank) + " dims, not " +
                          std::to_string(call.shape.rank()));
  }
  Header header{};
  std::memcpy(header.data(), call.name.data(), call.name.size());
  header[kNameWords] = call.argument;
  header[kNameWords + 1] = static_cast<int64_t>(call.dtype);
  header[kNameWords + 2] = static_cast<int64_t>(call.shape.rank());
  for (std::size_t i = 0; i < call.shape.rank(); ++i)
    header[kNameWords + 3 + i] = call.shape[i];
  return header;
}

Call decode(const Header& header) {
  Call call;
  call.name.assign(reinterpret_cast<const char*>(header.data()),
                   strnlen(reinterpret_cast<const char*>(header.data()), kNameWords * 8));
  call.argument = static_cast<int>(header[kNameWords]);
  call.dtype = static_cast<DType>(header[kNameWords + 1]);
  const auto rank = static_cast<std::size_t>(std::min<int64_t>(header[kNameWords + 2], kMaxRank));
  call.shape = Shape(
      std::vector<int64_t>(header.begin() + kNameWords + 3,
                           header.begin() + static_cast<std::ptrdiff_t>(kNameWords + 3 + rank)));
  return call;
}

/// f() with Gloo's failures (a peer gone, a timeout) as ExecutionError "[name] ...".
template <typename F>
void guarded(const std::string& name, F&& f) {
  try {
    f();
  } catch (const Error&) {
    throw;
  } catch (const gloo::EnforceNotMet& e) {
    throw ExecutionError("[" + name + "] across processes (Gloo): " + e.msg());
  } catch (const std::exception& e) {
    throw ExecutionError("[" + name + "] across processes (Gloo): " + e.what());
  }
}

class GlooLink final : public ProcessLink {
 public:
  GlooLink(const ProcessInfo& process, std::chrono::milliseconds timeout) : timeout_(timeout) {
    if (process.rank == 0) server_ = serve_store(process.master_addr, process.master_port);
    store_ = std::make_unique<StoreClient>(
        process.master_addr + ":" + std::to_string(process.master_port), timeout);
    gloo::transport::tcp::attr attr;
    // GLOO_SOCKET_IFNAME names the interface, as for PyTorch's Gloo; else the address this
    // process reaches the store from, which its peers can reach it at.
    if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface != nullptr && *iface) {
      attr.iface = iface;
    } else {
      attr.hostname = store_->local_address();
    }
    guarded("collective", [&] {
      device_ = gloo::transport::tcp::CreateDevice(attr);
      context_ = std::make_shared<gloo::rendezvous::Context>(process.rank, process.world_size);
      context_->setTimeout(timeout);
      gloo::rendezvous::PrefixStore prefixed("ember", *store_);
      context_->connectFullMesh(prefixed, device_);
    });
  }

  void check_same_call(const Call& call) override {
    const Header mine = encode(call);
    std::vector<Header> all(static_cast<std::size_t>(context_->size));
    guarded(call.name, [&] {
      gloo::AllgatherOptions options(context_);
      options.setInput(const_cast<int64_t*>(mine.data()), mine.size());
      options.setOutput(all.front().data(), mine.size() * all.size());
      options.setTimeout(timeout_);
      gloo::allgather(options);
    });
    std::vector<Call> calls;
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < all.size(); ++i) {
      calls.push_back(decode(all[i]));
      labels.push_back("process " + std::to_string(i));
    }
    check_same_calls(calls, labels);
  }

  void all_reduce(TensorData& data, ReduceOp op) override {
    visit_arithmetic("all_reduce", data.dtype(), [&]<typename T>() {
      guarded("all_reduce", [&] {
        gloo::AllreduceOptions options(context_);
        const std::span<T> values = data.as_mut<T>();
        options.setOutput(values.data(), values.size());
        using Reduce = void (*)(void*, const void*, const void*, size_t);
        options.setReduceFunction(op == ReduceOp::Max ? static_cast<Reduce>(&gloo::max<T>)
                                                      : static_cast<Reduce>(&gloo::sum<T>));
        options.setTimeout(timeout_);
        gloo::allreduce(options);
      });
    });
  }

  void broadcast(TensorData& data, int root) override {
    guarded("broadcast", [&] {
      gloo::BroadcastOptions options(context_);
      const std::span<std::byte> bytes = data.bytes_mut();
      auto* raw = reinterpret_cast<uint8_t*>(bytes.data());
      if (context_->rank == root) options.setInput(raw, bytes.size());
      options.setOutput(raw, bytes.size());
      options.setRoot(root);
      options.setTimeout(timeout_);
      gloo::broadcast(options);
    });
  }

  std::vector<TensorData> all_gather(const TensorData& data) override {
    const std::span<const std::byte> bytes = data.bytes();
    std::vector<uint8_t> gathered(bytes.size() * static_cast<std::size_t>(context_->size));
    guarded("all_gather", [&] {
      gloo::AllgatherOptions options(context_);
      options.setInput(const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(bytes.data())),
                       bytes.size());
      options.setOutput(gathered.data(), gathered.size());
      options.setTimeout(timeout_);
      gloo::allgather(options);
    });
    std::vector<TensorData> parts;
    for (int i = 0; i < context_->size; ++i) {
      const auto* first = reinterpret_cast<const std::byte*>(gathered.data()) + bytes.size() * i;
      parts.emplace_back(std::vector<std::byte>(first, first + bytes.size()), data.shape(),
                         data.dtype());
    }
    return parts;
  }

 private:
  std::chrono::milliseconds timeout_;
  std::unique_ptr<StoreServer> server_;
  std::unique_ptr<StoreClient> store_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
};

}  // namespace

std::unique_ptr<ProcessLink> connect_processes(const ProcessInfo& process,
                                               std::chrono::milliseconds timeout) {
  return std::make_unique<GlooLink>(process, timeout);
}

}  // namespace ember::collective
