// What is compiled: a kernel, a function kernels call, or a function run on
// the host (the driver of a jit function's prange loops). Type inference
// and the lowering branch on it; only kernels have a pipeline entry yet.
#pragma once

namespace spirjit {
enum class FunctionKind { Kernel, DeviceFunction, Host };
} // namespace spirjit
