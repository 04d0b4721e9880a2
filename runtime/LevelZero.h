// The Level Zero backend (Device.h's interface), through the loader
// (libze_loader): drivers and devices, one context and one immediate
// command list per device, shared (USM) allocations, modules from SPIR-V,
// kernels with group sizes from the NdRange or from the kernel's own
// suggestion, events from pools. See docs/level-zero.md for what is proven
// only against the loader's null driver.
#pragma once

#include "runtime/Device.h"

#include <memory>
#include <string>
#include <vector>

namespace spirjit::runtime {

/// Every Level Zero device of every driver, found once per process. No
/// loader driver (zeInit fails) gives an empty list, not an error.
const std::vector<std::shared_ptr<Device>> &levelZeroDevices();

/// The name of a ze_result_t ("ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY").
std::string levelZeroResultName(int code);

} // namespace spirjit::runtime
