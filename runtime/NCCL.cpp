#include "runtime/NCCL.h"

#include "runtime/CUDA.h"
#include "runtime/DeviceError.h"
#include "runtime/DriverLibrary.h"

#include <cstdint>

namespace spirjit::runtime {

namespace {

// ncclUniqueId and ncclComm_t as NCCL's header declares them.
struct UniqueId {
  char internal[128];
};
using Comm = void *;

// The entry points spirjit calls; all return ncclResult_t (0: success).
#define SPIRJIT_NCCL_ENTRIES(X)                                                \
  X(ncclGetVersion, int *)                                                     \
  X(ncclGetUniqueId, UniqueId *)                                               \
  X(ncclCommInitRank, Comm *, int, UniqueId, int)                              \
  X(ncclCommDestroy, Comm)                                                     \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)                                                              \
  X(ncclSend, const void *, std::size_t, int, int, Comm, void *)              \
  X(ncclRecv, void *, std::size_t, int, int, Comm, void *)                    \
  X(ncclAllReduce, const void *, void *, std::size_t, int, int, Comm, void *)

struct Library {
#define SPIRJIT_NCCL_FIELD(name, ...) int (*name)(__VA_ARGS__) = nullptr;
  SPIRJIT_NCCL_ENTRIES(SPIRJIT_NCCL_FIELD)
#undef SPIRJIT_NCCL_FIELD
  const char *(*ncclGetErrorString)(int) = nullptr;
  bool loaded = false;
};

const Library &library() {
  static const Library loaded = [] {
    Library api;
    void *handle = openDriverLibrary("SPIRJIT_NCCL_LIBRARY", "libnccl.so.2");
    if (!handle)
      return api;
    bool all = true;
#define SPIRJIT_NCCL_LOAD(name, ...)                                           \
  api.name = driverEntry<decltype(api.name)>(handle, #name);                   \
  all = all && api.name;
    SPIRJIT_NCCL_ENTRIES(SPIRJIT_NCCL_LOAD)
#undef SPIRJIT_NCCL_LOAD
    api.ncclGetErrorString =
        driverEntry<decltype(api.ncclGetErrorString)>(handle,
                                                      "ncclGetErrorString");
    api.loaded = all;
    return api;
  }();
  return loaded;
}

const char *resultName(int result) {
  static const char *const names[] = {
      "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError",
      "ncclInternalError",   "ncclInvalidArgument",    "ncclInvalidUsage",
      "ncclRemoteError",     "ncclInProgress"};
  return result >= 0 && result < 8 ? names[result] : "ncclResult";
}

void check(int result, const char *what) {
  if (result == 0)
    return;
  const Library &api = library();
  std::string detail = api.ncclGetErrorString
                           ? api.ncclGetErrorString(result)
                           : "NCCL error " + std::to_string(result);
  throw DeviceError("nccl", result, resultName(result),
                    std::string(what) + " failed (" + detail + ")");
}

const Library &loadedLibrary() {
  const Library &api = library();
  if (!api.loaded)
    throw DeviceError("nccl", -1, "NCCL_NOT_FOUND",
                      "NCCL (libnccl.so.2) could not be loaded: install "
                      "NVIDIA's NCCL or set SPIRJIT_NCCL_LIBRARY to its "
                      "path");
  return api;
}

} // namespace

bool ncclAvailable() { return library().loaded; }

std::string ncclVersion() {
  const Library &api = library();
  int code = 0;
  if (!api.loaded || api.ncclGetVersion(&code) != 0)
    return "";
  // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
  return std::to_string(code / 10000) + "." +
         std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

NcclUniqueId ncclNewUniqueId() {
  UniqueId id;
  check(loadedLibrary().ncclGetUniqueId(&id), "ncclGetUniqueId");
  NcclUniqueId out;
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<unsigned char>(id.internal[i]);
  return out;
}

NcclCommunicator::NcclCommunicator(std::shared_ptr<Device> device, int ranks,
                                   const NcclUniqueId &id, int rank)
    : device_(std::move(device)) {
  const Library &api = loadedLibrary();
  if (!cudaStreamHandle(*device_))
    throw DeviceError("nccl", 4, "ncclInvalidArgument",
                      "NCCL runs only on CUDA devices, not on " +
                          device_->filterString());
  UniqueId raw;
  for (std::size_t i = 0; i < id.size(); ++i)
    raw.internal[i] = static_cast<char>(id[i]);
  // NCCL takes the device from the calling thread's current context.
  cudaMakeCurrent(*device_);
  check(api.ncclCommInitRank(&comm_, ranks, raw, rank), "ncclCommInitRank");
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_) {
    try {
      cudaMakeCurrent(*device_);
    } catch (const DeviceError &) {
      // A forked child: the communicator dies with the process.
      return;
    }
    library().ncclCommDestroy(comm_);
    if (side_)
      cudaDestroySideStream(*device_, side_);
  }
}

void *NcclCommunicator::stream() const {
  return reinterpret_cast<void *>(cudaStreamHandle(*device_));
}

void NcclCommunicator::sendReceive(const std::vector<Transfer> &transfers,
                                   bool beside) {
  const Library &api = loadedLibrary();
  cudaMakeCurrent(*device_);
  void *queue = stream();
  if (beside) {
    if (!side_)
      side_ = cudaCreateSideStream(*device_);
    cudaOrderBefore(*device_, side_);
    queue = reinterpret_cast<void *>(side_);
  }
  check(api.ncclGroupStart(), "ncclGroupStart");
  int failed = 0;
  const char *what = "";
  for (const Transfer &t : transfers) {
    if (failed == 0 && t.dest >= 0) {
      failed = api.ncclSend(t.send, t.count, static_cast<int>(t.type), t.dest,
                            comm_, queue);
      what = "ncclSend";
    }
    if (failed == 0 && t.source >= 0) {
      failed = api.ncclRecv(t.receive, t.count, static_cast<int>(t.type),
                            t.source, comm_, queue);
      what = "ncclRecv";
    }
  }
  // The group is closed whatever failed, so that NCCL's state stays sane.
  int ended = api.ncclGroupEnd();
  check(failed, what);
  check(ended, "ncclGroupEnd");
}

void NcclCommunicator::rejoin() {
  if (side_)
    cudaWaitForStream(*device_, side_);
}

void NcclCommunicator::allReduce(const void *send, void *receive,
                                 std::size_t count, NcclType type,
                                 NcclOp op) {
  const Library &api = loadedLibrary();
  cudaMakeCurrent(*device_);
  check(api.ncclAllReduce(send, receive, count, static_cast<int>(type),
                          static_cast<int>(op), comm_, stream()),
        "ncclAllReduce");
}

} // namespace spirjit::runtime
