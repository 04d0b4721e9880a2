// What the lowering to LLVM IR needs to know about a target, and nothing
// more: the lowering itself is target-independent, so a native host target
// (for the host side of prange functions) or another device target only
// adds an implementation of this interface.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>

namespace spirjit {

/// Work-item queries a kernel can make, in OpenCL's dimension numbering
/// (dimension 0 is the fastest-varying).
enum class WorkItemQuery { GlobalId, GlobalSize, LocalId, LocalSize, GroupId,
                           NumGroups };

class Target {
public:
  virtual ~Target() = default;
  virtual std::string name() const = 0;
  virtual void configureModule(llvm::Module &module) const = 0;
  /// Address space of kernel arguments that point to device memory.
  virtual unsigned globalAddressSpace() const = 0;
  /// Address space of work-group local memory.
  virtual unsigned localAddressSpace() const = 0;
  /// A work-group barrier that also fences local and global memory. It is
  /// marked convergent so no optimisation moves or duplicates it.
  virtual void emitBarrier(llvm::IRBuilder<> &builder) const = 0;
  /// A memory fence for local and global memory.
  virtual void emitMemoryFence(llvm::IRBuilder<> &builder) const = 0;
  /// Makes `function` an entry point the runtime can launch.
  virtual void markKernel(llvm::Function &function) const = 0;
  /// Calling convention of ordinary device functions and built-ins.
  virtual llvm::CallingConv::ID functionCallingConvention() const = 0;
  /// A 64-bit work-item query for OpenCL dimension `dim` (an i32 value).
  virtual llvm::Value *emitWorkItemQuery(llvm::IRBuilder<> &builder,
                                         WorkItemQuery query,
                                         llvm::Value *dim) const = 0;
  /// A call to a math built-in such as sqrt on float or double operands.
  virtual llvm::Value *emitMathCall(llvm::IRBuilder<> &builder,
                                    const std::string &name,
                                    llvm::ArrayRef<llvm::Value *> args) const = 0;
};

/// SPIR-V through the SPIR 64-bit target: OpenCL built-ins by their
/// Itanium-mangled names, which the SPIR-V translator maps to the OpenCL
/// extended instruction set and built-in variables.
std::unique_ptr<Target> createSPIRTarget();

} // namespace spirjit
