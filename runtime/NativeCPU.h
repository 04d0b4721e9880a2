// The native CPU device (Device.h's interface): kernels the compiler made
// into host machine code (a HostObject image: NativeABI.h), run on a pool
// of threads of our own (ThreadPool.h) over the host's own memory.
//
// Buffers are host allocations (64-byte aligned) and copies memcpy; host
// memory is used in place (wrapHostMemory), so NumPy arrays are launched
// without a copy. One in-order queue: a thread of the device takes each
// command in turn and splits a launch's units into contiguous chunks, a
// few per hardware thread (ThreadPool.h); work-group local memory is an
// arena per chunk, reused by the chunk's groups. Listed only where
// SPIRJIT_NATIVE=1 is set.
#pragma once

#include "runtime/Device.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spirjit::runtime {

/// The native CPU device, `native:cpu:0`, when SPIRJIT_NATIVE=1; else
/// none.
std::vector<std::shared_ptr<Device>> nativeDevices();

/// The host itself as a device, listed nowhere: the native CPU device's
/// machine code, each launch run to its end by the thread that makes it
/// (no queue, no pool; its events are complete). Its buffers are any
/// host-addressable memory: launch/ computes small array values of CPU
/// devices with it, in their own memory (ArrayGraph.h, computeOnHost).
std::shared_ptr<Device> hostDevice();

/// Links a relocatable object file of this host into the process and gives
/// the address of `symbol` in it, owning the code (the last copy's
/// destruction unlinks it); null when the object does not define it. The
/// runtime links no compiler: the launcher hands over the compiler's
/// in-process JIT (compiler/HostTarget.h) before it builds a program.
using NativeLinker = std::function<std::shared_ptr<void>(
    const std::vector<char> &object, const std::string &symbol)>;
void setNativeLinker(NativeLinker linker);

} // namespace spirjit::runtime
