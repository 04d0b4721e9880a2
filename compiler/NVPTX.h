// PTX for NVIDIA GPUs from a module lowered and optimised for the NVPTX
// target (createNVPTXTarget): the image of CUDA devices.
#pragma once

#include <llvm/IR/Module.h>

#include <string>

namespace spirjit {

struct PTXRequest {
  std::string entryPoint;
  /// The device's compute capability as major*10+minor (90 for an H100);
  /// 0 when no device is known. LLVM 15 emits at most sm_86 / PTX 7.5,
  /// which newer drivers JIT-compile for newer GPUs.
  int computeCapability = 0;
  /// The launch's rank: work-items are guarded in these dimensions only
  /// (the runtime launches one thread in each of the others).
  int dimensions = 3;
  /// An NdRange launch: its extents are whole work-groups, so no
  /// work-item is past them and the entry point guards none.
  bool wholeGroups = false;
  bool fastmath = false;
  /// The kernel's opt= level; above 0 the module is optimised again with
  /// the NVPTX target's passes (libdevice is always optimised).
  int optLevel = 2;
  /// The user's function, for the error when libdevice is missing.
  std::string functionName, filename;
  int line = 0;
};

/// Contract: takes a verified module of the NVPTX target whose entry
/// point has kept only the parameters it reads (DropUnusedParameters);
/// gives the PTX text of the module. On the way, the entry point's ABI
/// becomes the CUDA one the runtime launches (runtime/CUDA.cpp):
///  - each local-memory pointer parameter (addrspace 3) becomes an i32
///    byte offset into the launch's one dynamic shared segment;
///  - three i64 parameters follow, the launch's global extents in OpenCL
///    order: they answer global-size queries and (but for wholeGroups)
///    guard the work-items of a grid rounded up to whole blocks;
///  - math calls to libdevice (__nv_*) are linked from libdevice.10.bc
///    (SPIRJIT_LIBDEVICE, else CUDA's default path); when it is missing a
///    UserError names the function;
///  - above optLevel 0 the module is optimised again with the NVPTX
///    target's passes, and each block's global loads are moved up to be
///    issued together.
std::string emitPTX(llvm::Module &module, const PTXRequest &request);

/// The libdevice bitcode file emitPTX links: $SPIRJIT_LIBDEVICE, else
/// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc.
std::string libdevicePath();

/// The processor and PTX feature for a compute capability, as "sm_86
/// +ptx75" (see PTXRequest).
std::string ptxProcessor(int computeCapability);

} // namespace spirjit
