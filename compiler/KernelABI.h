// The kernel ABI: how each Python argument becomes kernel parameters.
// docs/abi.md explains it; the lowering to LLVM IR and the launcher both
// read this one function, so they cannot disagree.
#pragma once

#include "compiler/Types.h"

#include <vector>

namespace spirjit {

struct KernelParameter {
  enum class Kind {
    ArrayData,   // pointer to element [0, ..., 0] in global memory; a
                 // jit function's list argument: its spirjit_host_list
                 // (HostABI.h)
    LocalData,   // a LocalAccessor: local memory the launch sizes (its
                 // extents follow as ArrayShape; it has no strides)
    GroupScratch, // hidden, last: local memory for group_reduce and
                  // group_broadcast, 16 bytes per work-item
    DebugRecord,  // hidden, after GroupScratch: global memory where checks
                  // report their first failure (DebugRecord.h)
    ArrayShape,  // int64 extent of dimension `dim`
    ArrayStride, // int64 stride of dimension `dim`, in elements (layout
                 // 'A' only: C and F strides follow from the shape)
    Scalar,      // the value itself; bool travels as one byte; a complex
                 // number as two parameters, real (dim 0) and imaginary
                 // (dim 1)
  };
  Kind kind;
  int argument; // index into the argument types given
  int dim = 0;
  /// A tuple argument (jit functions' host code only; a namedtuple too)
  /// travels as its elements' parameters, each as if it were an argument
  /// itself, nested tuples flattened: which element, by its index at each
  /// level. Empty for other arguments.
  std::vector<int> element;
};

/// The type of the value that `p` is a parameter of: the argument's, or
/// its tuple element's.
const Type *parameterType(const KernelParameter &p,
                          const std::vector<const Type *> &arguments);

/// Parameters of a kernel (or device function) whose arguments have these
/// types, in order. An item argument has no parameter. Local memory
/// (LocalData, GroupScratch) arrives as pointer parameters, OpenCL's model:
/// only for targets whose DeviceTarget::localMemoryAsParameters() says so,
/// which the lowering checks. `debugRecord`: compiled with boundscheck or
/// debug.
std::vector<KernelParameter>
kernelParameters(const std::vector<const Type *> &arguments,
                 bool groupScratch = false, bool debugRecord = false);

} // namespace spirjit
