// What the compiler needs to know about a target, in two layers.
//
// `Target` is what every module needs: its configuration, calling
// conventions, math calls, the numbering of memory spaces, how LLVM's
// optimiser must be configured for it and what its code generator cannot
// take (legalize). A native host target (for the host side of prange
// functions) implements this layer only. `DeviceTarget` adds what kernels
// on a device use: work-item queries, barriers, fences, how local memory
// reaches a kernel and which atomics the device has. The lowering is
// target-independent and asks for the device layer only where it lowers a
// kernel-API construct.
#pragma once

#include "compiler/Types.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace spirjit {

class DeviceTarget;

class Target {
public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;
  virtual void configureModule(llvm::Module &module) const = 0;
  /// The LLVM address space of memory in `space`.
  virtual unsigned addressSpace(MemorySpace space) const = 0;
  /// Makes `function` an entry point the runtime can launch.
  virtual void markKernel(llvm::Function &function) const = 0;
  /// Calling convention of ordinary functions and built-ins.
  virtual llvm::CallingConv::ID functionCallingConvention() const = 0;
  /// A call to a math built-in such as sqrt on float or double operands.
  virtual llvm::Value *
  emitMathCall(llvm::IRBuilder<> &builder, const std::string &name,
               llvm::ArrayRef<llvm::Value *> args) const = 0;
  /// LLVM 15 computes the closed form of some loop sums (n*(n-1)/2) in
  /// integers wider than 64 bits (i65). A target that cannot express them
  /// answers true, and optimizeModule keeps exit values as the loops
  /// compute them, for this target's modules only.
  virtual bool keepsLoopExitValues() const { return false; }
  /// Does this target's code link with a vector math library LLVM's
  /// vectoriser knows (glibc's libmvec): optimizeModule then lets it turn
  /// the calls of sin, cos, exp, log and pow in a loop it vectorises into
  /// calls of their vector variants, each lane within libmvec's error
  /// bound (4 ulp) of the scalar result.
  virtual bool vectorMath() const { return false; }
  /// Does this target's code link with `symbol`, a vector variant of a
  /// math function beyond those LLVM 15 knows of (libmvec's erf, tanh,
  /// atan2 ..., glibc 2.35 on; optimizeModule's table)?
  virtual bool hasVectorFunction(const std::string &symbol) const {
    return false;
  }
  /// Does optimizeModule unswitch loops on branches that do not change in
  /// them (a copy of the loop per way), where LLVM's O2 does not? The
  /// native device's loops over work-items test the group's uniform
  /// values in every item; unswitched, the loop vectorises without masks.
  virtual bool unswitchesLoops() const { return false; }
  /// Function passes optimizeModule runs just before LLVM's loop
  /// vectoriser (its vectorizer-start extension point): the native device
  /// jams its item loops there (NativeTarget.cpp). None by default.
  virtual void addPassesBeforeVectorizing(llvm::FunctionPassManager &passes,
                                          llvm::OptimizationLevel level) const {
  }
  /// Rewrites what this target's code generator cannot take; optimizeModule
  /// runs it after LLVM's pipeline.
  virtual void legalize(llvm::Module &module) const {}
  /// The code generator whose costs LLVM's optimiser weighs (the loop
  /// vectoriser's vector widths); nullptr: LLVM's generic costs, for
  /// targets whose code is generated elsewhere (a driver's compiler).
  virtual llvm::TargetMachine *targetMachine() const { return nullptr; }
  /// This target's device layer, or nullptr for a host target.
  virtual const DeviceTarget *asDevice() const { return nullptr; }
};

/// Work-item queries a kernel can make, in OpenCL's dimension numbering
/// (dimension 0 is the fastest-varying).
enum class WorkItemQuery {
  GlobalId,
  GlobalSize,
  LocalId,
  LocalSize,
  GroupId,
  NumGroups
};

class DeviceTarget : public Target {
public:
  const DeviceTarget *asDevice() const override { return this; }
  /// A work-group barrier that also fences local and global memory. It is
  /// marked convergent so no optimisation moves or duplicates it.
  virtual void emitBarrier(llvm::IRBuilder<> &builder) const = 0;
  /// A memory fence for local and global memory.
  virtual void emitMemoryFence(llvm::IRBuilder<> &builder) const = 0;
  /// A 64-bit work-item query for OpenCL dimension `dim` (an i32 value).
  virtual llvm::Value *emitWorkItemQuery(llvm::IRBuilder<> &builder,
                                         WorkItemQuery query,
                                         llvm::Value *dim) const = 0;
  /// Does work-group local memory reach a kernel as pointer parameters
  /// (KernelParameter::LocalData and GroupScratch, KernelABI.h), each
  /// buffer sized by the launch? That is OpenCL's model. A device with one
  /// shared segment per launch would answer false and take offsets into
  /// the segment instead; this is the one place the choice is made.
  virtual bool localMemoryAsParameters() const = 0;
  /// How many consecutive work-items of a group form a sub-group
  /// (kapi.SubGroup): a warp on NVIDIA GPUs, 16 elsewhere (the float32
  /// lanes of an AVX-512 vector, and Intel GPUs' usual width).
  virtual int64_t subGroupSize() const { return 16; }
  /// A hardware exchange of the i32 `value` among the lanes of the
  /// work-item's sub-group set in the i32 `mask`: from lane `lane` (Index),
  /// `lane` lanes below (Up: lanes under it keep their own), above (Down)
  /// or at lane ^ `lane` (Xor); `lane` an i32. nullptr where the device
  /// has none (the default): sub-group and group collectives then go
  /// through the group's local scratch and barriers (LowerKernelAPI.cpp).
  enum class Shuffle { Index, Up, Down, Xor };
  virtual llvm::Value *emitShuffle(llvm::IRBuilder<> &builder, Shuffle kind,
                                   llvm::Value *mask, llvm::Value *value,
                                   llvm::Value *lane) const {
    return nullptr;
  }
  virtual bool hasShuffles() const { return false; }
  /// The i32 of the lanes in the i32 `mask` whose i1 `truth` holds (bit i
  /// for lane i), by one hardware vote; nullptr where the device has none
  /// (kapi.sub_group_ballot then ORs through the group scratch).
  virtual llvm::Value *emitBallot(llvm::IRBuilder<> &builder,
                                  llvm::Value *mask, llvm::Value *truth) const {
    return nullptr;
  }
  /// Can the device add floats atomically (atomicrmw fadd, fsub)? If not,
  /// float atomics become compare-and-swap loops on the bits.
  virtual bool hasFloatAtomicAdd() const = 0;
  /// Does an atomic load or store become the device's plain access to the
  /// memory itself (`load/store atomic monotonic`: PTX's ld/st.volatile)?
  /// Elsewhere AtomicRef.load() is an atomic OR of 0 and store() an
  /// exchange: read-modify-writes, which a loop spinning on a flag makes
  /// contend with the flag's writer and with every other reader.
  virtual bool hasAtomicLoadStore() const { return false; }
  /// printf(format, args...) as the device prints (OpenCL's printf: `%ld`
  /// for 64-bit integers, doubles for floats). Returns false where the
  /// target cannot print; the lowering then refuses `print`.
  virtual bool emitPrintf(llvm::IRBuilder<> &builder, const std::string &format,
                          llvm::ArrayRef<llvm::Value *> args) const {
    return false;
  }
};

/// SPIR-V through the SPIR 64-bit target: OpenCL built-ins by their
/// Itanium-mangled names, which the SPIR-V translator maps to the OpenCL
/// extended instruction set and built-in variables.
std::unique_ptr<DeviceTarget> createSPIRTarget();

/// NVIDIA GPUs through LLVM's NVPTX back end (nvptx64-nvidia-cuda): PTX
/// special registers, bar.sync, libdevice math, native float atomics. Its
/// modules end in emitPTX (NVPTX.h).
std::unique_ptr<DeviceTarget> createNVPTXTarget();

} // namespace spirjit
