// What native code sees of DeviceArrays and devices: the handles a C++
// extension takes through python/spirjit/include/spirjit/extension.hpp
// (`__spirjit_native__`).
#pragma once

#include "python/bindings/Dispatcher.h"

#include <pybind11/pybind11.h>

namespace spirjit::python {

/// Where the host reads `buffer`: host memory it wraps (from_dlpack of a
/// NumPy array), or SVM/USM the host addresses; nullptr elsewhere.
void *hostView(const runtime::Buffer &buffer);

/// Adds `__spirjit_native__` to DeviceArray and _Device.
void addNativeInterface(
    pybind11::class_<DeviceArray> &arrays,
    pybind11::class_<runtime::Device, std::shared_ptr<runtime::Device>>
        &devices);

} // namespace spirjit::python
