// The CUDA backend (Device.h's interface) for NVIDIA GPUs, through the
// driver API loaded at run time with dlopen("libcuda.so.1"): no link-time
// dependency, and a machine without the driver simply has no CUDA devices.
// One primary context (shared with CuPy, PyTorch and numba-cuda in the
// same process) and one stream per device (ordered with the legacy default stream), device memory
// (cuMemAlloc, pooled) for usm_type "device", managed memory for "shared"
// and pinned host memory for "host", modules from PTX.
#pragma once

#include "runtime/Device.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spirjit::runtime {

/// Every CUDA device, found once per process. No libcuda.so.1, or no GPU,
/// gives an empty list, not an error. SPIRJIT_CUDA_DRIVER names another
/// library to load (tests point it at a missing file).
const std::vector<std::shared_ptr<Device>> &cudaDevices();

/// The CUstream a CUDA device launches on, as the integer DLPack's
/// `__dlpack__(stream=...)` takes (the producer makes it wait for its own
/// work); 0 for a device of another backend.
std::uintptr_t cudaStreamHandle(const Device &device);

/// Makes a CUDA device's stream wait for the work queued so far on
/// `stream`, a CUstream of another library (1 and 2 name CUDA's legacy and
/// per-thread default streams), as __cuda_array_interface__'s `stream`
/// asks of a consumer. Does nothing for a device of another backend.
void cudaWaitForStream(Device &device, std::uintptr_t stream);

/// Makes `stream`, a CUstream of another library (1 and 2 as above),
/// wait for the work queued so far on a CUDA device's stream, as DLPack's
/// `__dlpack__(stream=...)` asks of a producer. Does nothing for a device
/// of another backend.
void cudaOrderBefore(Device &device, std::uintptr_t stream);

/// A new stream of a CUDA device's context that does not wait for the
/// legacy default stream: work queued there runs beside the device's own
/// stream (an NCCL transfer beside a kernel), ordered with it only by
/// cudaOrderBefore/cudaWaitForStream. 0 for a device of another backend.
std::uintptr_t cudaCreateSideStream(Device &device);
void cudaDestroySideStream(Device &device, std::uintptr_t stream);

/// Makes a CUDA device's (primary) context current on the calling thread,
/// as libraries on CUDA's runtime API (NCCL) expect of their caller. Does
/// nothing for a device of another backend.
void cudaMakeCurrent(Device &device);

/// The name of a CUresult ("CUDA_ERROR_OUT_OF_MEMORY"), from the driver
/// when it is loaded.
std::string cudaResultName(int code);

} // namespace spirjit::runtime
