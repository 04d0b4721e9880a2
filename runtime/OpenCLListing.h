// The OpenCL backend's device listing (OpenCL.cpp's private header): what
// each device is, found without starting a driver in this process, which
// a forked child could not use (OpenCLListing.cpp says why).
#pragma once

#include "runtime/Device.h"

#include <CL/cl.h>

#include <utility>
#include <vector>

namespace spirjit::runtime {

/// One device: its platform's place in clGetPlatformIDs's order, its place
/// in clGetDeviceIDs's, and what it is.
struct ListedDevice {
  cl_uint platformIndex = 0, index = 0;
  DeviceInfo info;
};

/// Every device of every platform, asked in a short-lived child process
/// (in this one where that fails).
std::vector<ListedDevice> listDevices();

/// The handles of a listed device, asked of the driver in this process;
/// DeviceError if the driver no longer lists it there.
std::pair<cl_platform_id, cl_device_id> findDevice(const ListedDevice &listed);

bool isPoCL(const DeviceInfo &info);

/// The fork generation (forkGeneration()) in which this process started
/// PoCL's devices, or -1 if it never did: a child of a process that did
/// cannot use them.
int poclStartedInFork();

} // namespace spirjit::runtime
