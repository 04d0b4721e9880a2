// NCCL, NVIDIA's collective communication library, loaded at run time with
// dlopen("libnccl.so.2") as CUDA's driver is: spirjit links nothing of it,
// and a machine without it simply has no NCCL path (spirjit.mpi then takes
// a CUDA-aware MPI or pinned host buffers). Every operation is queued on
// the CUDA device's own stream, so it is ordered after the kernels that
// wrote its input and before the ones that read its output, with no host
// wait. One communicator per rank and device; the unique id that starts it
// travels between ranks by whatever the caller has (mpi4py's bcast).
#pragma once

#include "runtime/Device.h"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace spirjit::runtime {

/// NCCL's element types (ncclDataType_t), by value.
enum class NcclType { Int8 = 0, Uint8 = 1, Int32 = 2, Uint32 = 3, Int64 = 4,
                      Uint64 = 5, Float16 = 6, Float32 = 7, Float64 = 8 };

/// NCCL's reductions (ncclRedOp_t), by value.
enum class NcclOp { Sum = 0, Prod = 1, Max = 2, Min = 3 };

/// The 128 bytes that let every rank join one communicator.
using NcclUniqueId = std::array<unsigned char, 128>;

/// Whether libnccl.so.2 (or the library SPIRJIT_NCCL_LIBRARY names) opens
/// and has the entry points spirjit uses.
bool ncclAvailable();

/// NCCL's version as "2.28.3", or "" where it is not available.
std::string ncclVersion();

/// A fresh unique id, made on one rank and sent to the others.
NcclUniqueId ncclNewUniqueId();

class NcclCommunicator {
public:
  /// Joins the communicator of `ranks` ranks that `id` names, as `rank`, on
  /// `device` (a CUDA device). Every rank must call it (NCCL waits for
  /// all). DeviceError("nccl", ...) on failure.
  NcclCommunicator(std::shared_ptr<Device> device, int ranks,
                   const NcclUniqueId &id, int rank);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator &) = delete;
  NcclCommunicator &operator=(const NcclCommunicator &) = delete;

  /// One transfer of a group: `count` elements at `send` to rank `dest`,
  /// and `count` into `receive` from rank `source`; a negative rank skips
  /// that half.
  struct Transfer {
    const void *send;
    int dest;
    void *receive;
    int source;
    std::size_t count;
    NcclType type;
  };

  /// Every transfer as one group: one launch on the device, and no
  /// deadlock whatever order the ranks list their transfers in. Queued on
  /// the device's stream, or with `beside` on the communicator's own
  /// stream, behind what the device's stream holds so far but not
  /// holding up what is queued there next, until rejoin().
  void sendReceive(const std::vector<Transfer> &transfers,
                   bool beside = false);

  /// Makes the device's stream wait (on the device, not the host) for
  /// every transfer queued beside it so far.
  void rejoin();

  /// `receive[i] = op over ranks of send[i]`, for `count` elements
  /// (`send == receive` works in place).
  void allReduce(const void *send, void *receive, std::size_t count,
                 NcclType type, NcclOp op);

  const std::shared_ptr<Device> &device() const { return device_; }

private:
  void *stream() const;

  std::shared_ptr<Device> device_;
  void *comm_ = nullptr;
  std::uintptr_t side_ = 0; // the stream beside the device's, made on demand
};

} // namespace spirjit::runtime
