// How much private memory a work-item of a kernel takes.
//
// Contract: reads an optimised module (after optimizeModule); changes
// nothing. Returns the bytes of every fixed-size stack allocation (alloca)
// of every function the module defines, summed: an upper bound for any one
// call chain, dominated by PrivateArrays. The launcher compares it with
// the device's private memory before a launch (runtime::DeviceInfo):
// PoCL keeps a whole work-group's private memory on one thread's stack and
// crashes when it does not fit.
#pragma once

#include <llvm/IR/Module.h>

#include <cstdint>

namespace spirjit {

uint64_t privateMemoryBytes(const llvm::Module &module);

} // namespace spirjit
