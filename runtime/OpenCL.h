// The OpenCL backend (Device.h's interface): platforms and devices through
// the ICD loader, one context and in-order queue per device, SVM or cl_mem
// buffers, programs from SPIR-V (or from SPIR 1.2 bitcode for devices
// without SPIR-V ingestion, such as PoCL 3.1), kernels and launches.
#pragma once

#include "runtime/Device.h"

#include <memory>
#include <string>
#include <vector>

namespace spirjit::runtime {

/// Every OpenCL device of every platform, found once per process. No ICD
/// or no platform gives an empty list, not an error.
const std::vector<std::shared_ptr<Device>> &openclDevices();

/// For the dispatch benchmark: enqueues the cl_kernel `kernel` on the
/// cl_command_queue `queue` (raw handles, possibly another library's)
/// `count` times over the `dims` extents at `global` with no event, then
/// finishes. Returns the seconds taken.
double openclBareLaunchLoop(void *queue, void *kernel, size_t dims,
                            const size_t *global, int count);

/// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string openclErrorName(int code);

} // namespace spirjit::runtime
