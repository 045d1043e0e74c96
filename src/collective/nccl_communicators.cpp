#include "collective/nccl_communicators.h"

#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "backends/cuda/cuda_api.h"
#include "ember/error.h"

namespace ember::collective::nccl {

/// NCCL's entry points, from libnccl.so.2.
struct Api {
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
};

namespace {

template <typename F>
void find(void* library, const char* name, F& function, std::string& missing) {
  function = reinterpret_cast<F>(dlsym(library, name));
  if (function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

/// The entry points, opened once; ExecutionError naming why they cannot be.
const Api& api() {
  static const Api loaded = [] {
    std::string why;
    void* library = cuda::open_cuda_library({"libnccl.so.2", "libnccl.so"}, &why);
    if (library == nullptr) throw ExecutionError("[collective] NCCL is not installed: " + why);
    Api a;
    std::string missing;
    find(library, "ncclGetUniqueId", a.get_unique_id, missing);
    find(library, "ncclCommInitRank", a.comm_init_rank, missing);
    find(library, "ncclCommDestroy", a.comm_destroy, missing);
    find(library, "ncclGetErrorString", a.error_string, missing);
    find(library, "ncclAllReduce", a.all_reduce, missing);
    find(library, "ncclBroadcast", a.broadcast, missing);
    find(library, "ncclReduceScatter", a.reduce_scatter, missing);
    find(library, "ncclAllGather", a.all_gather, missing);
    find(library, "ncclGroupStart", a.group_start, missing);
    find(library, "ncclGroupEnd", a.group_end, missing);
    if (!missing.empty()) throw ExecutionError("[collective] libnccl.so.2 lacks " + missing);
    return a;
  }();
  return loaded;
}

void check(const Api& a, ncclResult_t result, const char* call) {
  if (result == ncclSuccess) return;
  throw ExecutionError(std::string("[collective] ") + call + " failed: " + a.error_string(result));
}

ncclDataType_t nccl_dtype(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return ncclFloat64;
    case DType::F32:
      return ncclFloat32;
    case DType::F16:
      return ncclFloat16;
    case DType::BF16:
      return ncclBfloat16;
    case DType::I64:
      return ncclInt64;
    case DType::I32:
      return ncclInt32;
    case DType::I8:
      return ncclInt8;
    case DType::U64:
      return ncclUint64;
    case DType::U32:
      return ncclUint32;
    case DType::U8:
      return ncclUint8;
    case DType::I16:
    case DType::U16:
    case DType::Bool:
      break;
  }
  throw InvalidArgument("[collective] NCCL has no dtype " + std::string(dtype_name(dtype)));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return ncclSum;
    case ReduceOp::Mean:
      return ncclAvg;
    case ReduceOp::Max:
      return ncclMax;
  }
  return ncclSum;  // unreachable: every enumerator is handled above
}

/// NCCL's unique id of a new group: made by process 0, sent to the others through link.
ncclUniqueId unique_id(const Api& a, const ProcessInfo& process, ProcessLink* link) {
  ncclUniqueId id{};
  if (process.rank == 0) check(a, a.get_unique_id(&id), "ncclGetUniqueId");
  if (link != nullptr) {
    TensorData bytes(std::vector<uint8_t>(sizeof(id.internal)),
                     Shape{static_cast<int64_t>(sizeof(id.internal))});
    std::memcpy(bytes.bytes_mut().data(), id.internal, sizeof(id.internal));
    link->broadcast(bytes, 0);
    std::memcpy(id.internal, bytes.bytes().data(), sizeof(id.internal));
  }
  return id;
}

}  // namespace

std::shared_ptr<Communicators> Communicators::get(const std::vector<int>& gpus,
                                                  const ProcessInfo& process, ProcessLink* link,
                                                  const std::function<void(int)>& make_current) {
  static std::mutex mutex;
  static std::map<std::vector<int>, std::shared_ptr<Communicators>> cache;
  const std::lock_guard lock(mutex);
  std::vector<int> key = gpus;
  key.push_back(process.world_size);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  // NVLink multicast stays off: the multi-GPU machines this is for do not set it up.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const Api& a = api();
  const ncclUniqueId id = unique_id(a, process, link);
  const int local = static_cast<int>(gpus.size());
  std::vector<void*> comms(gpus.size(), nullptr);
  check(a, a.group_start(), "ncclGroupStart");
  for (int i = 0; i < local; ++i) {
    make_current(i);
    check(a,
          a.comm_init_rank(reinterpret_cast<ncclComm_t*>(&comms[static_cast<std::size_t>(i)]),
                           local * process.world_size, id, process.rank * local + i),
          "ncclCommInitRank");
  }
  check(a, a.group_end(), "ncclGroupEnd");
  auto made = std::shared_ptr<Communicators>(new Communicators(a, std::move(comms)));
  cache.emplace(std::move(key), made);
  return made;
}

Communicators::Communicators(const Api& api, std::vector<void*> comms)
    : api_(api), comms_(std::move(comms)) {}

Communicators::~Communicators() {
  for (void* comm : comms_)
    api_.comm_destroy(static_cast<ncclComm_t>(comm));
}

void Communicators::all_reduce(int local, const void* send, void* recv, std::size_t count,
                               DType dtype, ReduceOp op, CUstream stream) const {
  check(
      api_,
      api_.all_reduce(send, recv, count, nccl_dtype(dtype), nccl_op(op),
                      static_cast<ncclComm_t>(comms_.at(static_cast<std::size_t>(local))), stream),
      "ncclAllReduce");
}

void Communicators::broadcast(int local, const void* send, void* recv, std::size_t count,
                              DType dtype, int root, CUstream stream) const {
  check(api_,
        api_.broadcast(send, recv, count, nccl_dtype(dtype), root,
                       static_cast<ncclComm_t>(comms_.at(static_cast<std::size_t>(local))), stream),
        "ncclBroadcast");
}

void Communicators::reduce_scatter(int local, const void* send, void* recv, std::size_t recv_count,
                                   DType dtype, ReduceOp op, CUstream stream) const {
  check(api_,
        api_.reduce_scatter(send, recv, recv_count, nccl_dtype(dtype), nccl_op(op),
                            static_cast<ncclComm_t>(comms_.at(static_cast<std::size_t>(local))),
                            stream),
        "ncclReduceScatter");
}

void Communicators::all_gather(int local, const void* send, void* recv, std::size_t send_count,
                               DType dtype, CUstream stream) const {
  check(
      api_,
      api_.all_gather(send, recv, send_count, nccl_dtype(dtype),
                      static_cast<ncclComm_t>(comms_.at(static_cast<std::size_t>(local))), stream),
      "ncclAllGather");
}

void Communicators::group_start() const {
  check(api_, api_.group_start(), "ncclGroupStart");
}
void Communicators::group_end() const {
  check(api_, api_.group_end(), "ncclGroupEnd");
}

}  // namespace ember::collective::nccl
