// The lowering of typed pyir to LLVM IR, private to compiler/lower/: one
// class, its methods defined by concern (Halide's Simplify_*.cpp):
//   LowerCalls.cpp        the entry point, the kernel ABI, device functions,
//                         and which concern lowers a call
//   LowerInstructions.cpp one pyir instruction at a time: blocks, phis,
//                         indexing, attributes, loops
//   LowerArithmetic.cpp   NumPy scalars: conversions, constants, operators
//   LowerMath.cpp         builtins and the math, cmath and NumPy functions
//   LowerRounding.cpp     floats to Python ints, round(x, ndigits)
//   LowerKernelAPI.cpp    work-item queries, barriers, group collectives,
//                         PrivateArray and atomics (KernelAPI.def)
//   LowerDebug.cpp        boundscheck and debug checks, assert, print
//   LowerHost.cpp         a jit function's host code: launches, arrays
//   LowerLists.cpp        lists in host code
// LowerToLLVM.h states the contract.
#pragma once

#include "compiler/ArrayOps.h"
#include "compiler/KernelAPI.h"
#include "compiler/LowerToLLVM.h"
#include "compiler/NonNegative.h"
#include "compiler/Parfor.h"
#include "frontend/Diagnostics.h"

#include <functional>
#include <map>
#include <vector>

namespace spirjit::lower {

using ir::BinaryOperator;
using ir::CompareOperator;
using ir::Instruction;
using ir::Opcode;

/// The LLVM form of a pyir value.
struct Lowered {
  llvm::Value *scalar = nullptr; // numbers (bool as i1); iterator: cursor
  llvm::Value *data = nullptr;   // arrays: pointer to element [0, ...]
  std::vector<llvm::Value *> shape, strides; // arrays, int64, in elements
  std::vector<Lowered> elements; // tuples; range: start, stop, step;
                                 // iterator: stop, step
};

/// What group_reduce combines with, or group_broadcast.
enum class GroupOperation { Broadcast, Add, Mul, Min, Max, And, Or, Xor };

/// What a scan over a work-group or its sub-groups gives each work-item.
enum class GroupScan { Inclusive, Exclusive, Total };

/// Lowers one typed function (the kernel or one device-function
/// specialisation) into a module that holds the others it calls.
class Lowering {
public:
  using FunctionMap = std::map<const TypedFunction *, llvm::Function *>;

  Lowering(const TypedFunction &typed, const Target &target,
           llvm::LLVMContext &context, const LoweringOptions &options,
           llvm::Module *module, FunctionMap &functions)
      : typed_(typed), target_(target), context_(context), options_(options),
        builder_(context), allocaBuilder_(context), module_(module),
        functions_(functions), nonNegative_(findNonNegativeIntegers(typed)) {}

  /// Creates the LLVM function (the kernel ABI for parameters).
  llvm::Function *declare();
  void lowerBody();

private:
  const std::string &filename() const { return typed_.description->filename; }
  [[noreturn]] void unsupported(const Instruction &inst,
                                const std::string &what) {
    throw UserError(UserErrorKind::UnsupportedFeature, filename(), inst.line,
                    what);
  }
  /// The target's device layer: kernel-API constructs need one.
  const DeviceTarget &device() const;

  // LowerArithmetic.cpp
  llvm::Type *scalarType(const Type *t);
  llvm::Type *memoryType(const Type *t); // bool is a byte in memory
  /// Pointer to an array's elements, in the array's address space.
  llvm::PointerType *pointerType(const Type *array) {
    return llvm::PointerType::get(memoryType(array->element),
                                  target_.addressSpace(array->memorySpace));
  }
  llvm::Value *convert(llvm::Value *v, const Type *from, const Type *to);
  llvm::Value *truth(llvm::Value *v, const Type *t);
  llvm::Value *makeComplex(llvm::Value *re, llvm::Value *im);
  /// `z` of type `t` conjugated: itself unless `t` is complex.
  llvm::Value *conjugate(llvm::Value *z, const Type *t);
  llvm::Value *constant(const ConstValue &c, const Type *t);
  llvm::Value *scalarOf(const Instruction *inst, const Type *to) {
    return convert(values_.at(inst).scalar, inst->type, to);
  }
  llvm::Value *lowerBinary(const Instruction &inst);
  llvm::Value *integerBinary(BinaryOperator op, llvm::Value *a, llvm::Value *b,
                             const Type *t);
  llvm::Value *floatBinary(BinaryOperator op, llvm::Value *a, llvm::Value *b);
  /// x ** y, math.pow and numpy.power of floats.
  llvm::Value *floatPower(llvm::Value *x, llvm::Value *y);
  llvm::Value *complexBinary(BinaryOperator op, llvm::Value *a, llvm::Value *b);
  llvm::Value *integerPower(llvm::Value *base, llvm::Value *exponent,
                            const Type *t);
  /// The internal function `name` of two `type` operands returning one,
  /// made by `body` (given a builder in its entry block) on first use.
  llvm::Function *integerHelper(
      const std::string &name, llvm::Type *type,
      const std::function<void(llvm::IRBuilder<> &, llvm::Function *)> &body);
  llvm::Value *callHelper(llvm::Function *helper, llvm::Value *a,
                          llvm::Value *b);
  /// NumPy's gcd (or lcm) of two integers of type t.
  llvm::Value *integerGcd(llvm::Value *a, llvm::Value *b, const Type *t,
                          bool lcm);
  llvm::Value *lowerUnary(const Instruction &inst);
  llvm::Value *lowerCompare(const Instruction &inst);
  /// `x op y` of numbers of types `a` and `b`, as Python and NumPy compare
  /// them (in their promoted type; a Python int by value).
  /// A comparison of a signed integer (or a Python int) with a uint64,
  /// by value as NumPy 2 compares them; nullptr for other operands.
  llvm::Value *compareSignedWithUnsigned64(CompareOperator op,
                                           llvm::Value *x, const Type *a,
                                           llvm::Value *y, const Type *b);
  llvm::Value *compareNumbers(CompareOperator op, llvm::Value *x,
                              const Type *a, llvm::Value *y, const Type *b);

  // LowerMath.cpp
  Lowered lowerBuiltinCall(const Instruction &inst);
  llvm::Value *complexExp(llvm::Value *re, llvm::Value *im);
  /// The principal square root of re + i im (CPython's cmath_sqrt).
  llvm::Value *complexSqrt(llvm::Value *re, llvm::Value *im);
  /// asin, acos, atan, asinh, acosh or atanh of re + i im.
  llvm::Value *complexInverse(const std::string &name, llvm::Value *re,
                              llvm::Value *im);
  llvm::Value *complexOrder(const ArrayOp &ufunc, llvm::Value *x,
                            llvm::Value *y);
  Lowered complexMath(const std::string &name, const Instruction &inst,
                      const Type *result);

  // LowerRounding.cpp
  /// A float to the integer type `to` as CPython's int(x) where it fits;
  /// beyond `to`'s range its ends, nan 0 (LLVM's fptosi.sat).
  llvm::Value *saturatingToInteger(llvm::Value *x, const Type *to);
  /// round(x, digits) of a float32 or float64 `x`, as CPython's.
  llvm::Value *roundDigits(llvm::Value *x, llvm::Value *digits);
  /// round(x, digits) for a float or double x, as a helper of the module.
  llvm::Function *roundDigitsFunction(llvm::Type *type);
  /// 10**k in the float type `type` for the integer 0 <= k < 2**bits, as
  /// a product of the powers 10**(2**i) of k's set bits, each the square
  /// of the last (by selects, no loop): exact up to 10**22 (float64) or
  /// 10**10 (float32), inf past the type's largest float. round(x, n) and
  /// print's shortest doubles share it.
  llvm::Value *powerOfTen(llvm::IRBuilder<> &b, llvm::Type *type,
                          llvm::Value *k, unsigned bits);

  // LowerKernelAPI.cpp
  Lowered lowerKernelApiCall(const Instruction &inst,
                             const KernelApiFunction &api);
  Lowered lowerWorkItemMethod(const Instruction &inst, const Type *receiver,
                              KernelApi method);
  Lowered lowerAtomicMethod(const Instruction &inst, const Type *atomic,
                            KernelApi method);
  Lowered lowerPrivateArray(const Instruction &inst);
  /// np.empty/zeros/ones/full of a constant shape in a kernel.
  Lowered lowerPrivateConstructor(const Instruction &inst);
  /// Each work-item's array of `element`s of a constant `shape` (storage
  /// in the entry block), its `count` elements set to `fill` if given.
  Lowered privateArray(const Type *element, const std::vector<int64_t> &shape,
                       llvm::Value *fill);
  /// group_reduce or group_broadcast (from `source`) over a group of `rank`
  /// dimensions.
  llvm::Value *groupCollective(int rank, llvm::Value *value, const Type *type,
                               GroupOperation op, llvm::Value *source);
  /// The group scratch as an array of `element`s (every algorithm's one
  /// slot a work-item), and a value as a slot holds it (a bool as i8).
  llvm::Value *groupSlots(llvm::Type *element);
  llvm::Value *toSlot(llvm::Value *value, const Type *type);
  /// `mine` op `theirs` for a group algorithm on values of `type`.
  llvm::Value *combineGroup(GroupOperation op, const Type *type,
                            llvm::Value *mine, llvm::Value *theirs);
  /// The value that `op` leaves unchanged, in `type`'s memory form.
  llvm::Value *groupIdentity(GroupOperation op, const Type *type);
  /// The segment of the work-group a group algorithm works over: the whole
  /// group, or the item's sub-group (subGroupSize() consecutive ids).
  struct GroupSegment {
    llvm::Value *me, *lane, *base, *count, *bound;
  };
  GroupSegment groupSegment(int rank, bool subGroup);
  /// A scan of `op` over the segment, through the group scratch.
  llvm::Value *groupScan(int rank, bool subGroup, llvm::Value *value,
                         const Type *type, GroupOperation op, GroupScan kind);
  /// The value of the segment's lane `lane` (the item's own where no such
  /// lane exists), through the group scratch.
  llvm::Value *groupShuffle(int rank, llvm::Value *value, const Type *type,
                            llvm::Value *lane);
  Lowered lowerGroupAlgorithm(const Instruction &inst,
                              const KernelApiFunction &api);
  // Collectives on devices with hardware shuffles (LowerWarpCollectives):
  // a warp's lanes exchange registers, and a group only meets twice.
  /// Whether values of `type` take that way (scalars of up to 64 bits).
  bool shufflesValues(const Type *type);
  /// The lanes of the item's warp: its lane and warp index (i64), the
  /// warp's lanes present (i64) and their i32 mask.
  struct Warp {
    llvm::Value *lane, *warp, *count, *mask;
  };
  Warp warpOf(llvm::Value *me, llvm::Value *size);
  /// `value` (any scalar of up to 64 bits) from another lane.
  llvm::Value *shuffleValue(DeviceTarget::Shuffle kind, llvm::Value *mask,
                            llvm::Value *value, llvm::Value *lane);
  /// The inclusive scan of `op` over the lanes of the item's warp.
  llvm::Value *warpInclusiveScan(GroupOperation op, const Type *type,
                                 llvm::Value *x, const Warp &w);
  /// groupScan and groupCollective's reduction by warps, in the slot form
  /// (a bool as i8).
  llvm::Value *warpScan(int rank, bool subGroup, llvm::Value *value,
                        const Type *type, GroupOperation op, GroupScan kind);
  /// groupShuffle by one hardware exchange.
  llvm::Value *warpShuffle(int rank, llvm::Value *value, const Type *type,
                           llvm::Value *lane);
  /// kapi.sub_group_ballot: an i32 with bit i set where lane i's i1
  /// `truth` holds (DeviceTarget::emitBallot, else an OR over the group
  /// scratch).
  llvm::Value *subGroupBallot(int rank, llvm::Value *truth);
  llvm::Value *atomicCompareExchangeLoop(
      llvm::Value *pointer, const Type *element,
      const std::function<llvm::Value *(llvm::Value *)> &update);
  /// Row-major linear id over `ndim` dimensions, and the product of sizes.
  llvm::Value *linearQuery(WorkItemQuery id, WorkItemQuery size, int ndim);
  llvm::Value *rangeProduct(WorkItemQuery size, int ndim);

  // LowerCalls.cpp
  void lowerEntry(llvm::Function *function);
  Lowered lowerCall(const Instruction &inst);
  /// The LLVM type a device function returns a value of type `t` as: a
  /// number's, or a struct of a tuple's numbers.
  llvm::Type *returnValueType(const Type *t);
  Lowered lowerDeviceCall(const Instruction &inst, const TypedFunction &callee);
  /// The argument for parameter `i` of a kapi call (nullptr: default).
  const Instruction *callArgument(const Instruction &inst, size_t i) const {
    if (const auto *arguments = typed_.callArguments.find(&inst))
      return i < arguments->size() ? (*arguments)[i] : nullptr;
    return i + 1 < inst.operands.size() ? inst.operands[i + 1] : nullptr;
  }
  int64_t constantArgument(const Instruction *value, int64_t fallback) const {
    const ConstValue *c = constantOf(typed_, value);
    if (!c)
      return fallback;
    return c->kind == ConstValue::Kind::Bool ? c->boolValue : c->intValue;
  }

  // LowerHost.cpp: a jit function's host code.
  bool isHost() const { return typed_.kind == FunctionKind::Host; }
  /// Returns from a host function with `status` when it is not 0.
  void checkStatus(llvm::Value *status);
  llvm::FunctionCallee hostHelper(const char *name, llvm::Type *result,
                                  llvm::ArrayRef<llvm::Type *> params);
  /// A prange loop's kernel run over its iteration space (Parfor.h).
  Lowered lowerLaunch(const Instruction &inst);
  Lowered lowerArrayConstructor(const Instruction &inst);
  /// A new C-contiguous array of `array`'s type and `shape`, placed as
  /// spirjit_host_alloc's `usm`, `like` and `device` say.
  Lowered allocateArray(const Type *array,
                        const std::vector<llvm::Value *> &shape, int usm,
                        llvm::Value *like, llvm::Value *device);
  /// np.array/np.asarray of nested tuples of numbers.
  Lowered lowerArrayLiteral(const Instruction &inst);
  Lowered lowerReshape(const Instruction &inst);
  Lowered lowerArange(const Instruction &inst);
  /// A call of an arange helper of HostABI.h and the array it made.
  Lowered callArange(const Instruction &inst, const char *helper,
                     std::vector<llvm::Value *> arguments,
                     std::vector<llvm::Type *> types);
  /// np.arange of complex numbers (spirjit_host_arange_complex).
  Lowered lowerComplexArange(const Instruction &inst,
                             const Instruction *start,
                             const Instruction *stop,
                             const Instruction *step);
  /// The array-expression stage's failed run-time check: a ValueError in
  /// host code, a debug report in a kernel.
  Lowered lowerFail(const Instruction &inst);
  /// A slice used as a value (ArrayExpressions.cpp's `view`).
  Lowered lowerView(const Instruction &inst);
  /// A global or closure NumPy array frozen into the code (GlobalValue::
  /// Array): a constant of the module in global memory, one per name.
  Lowered lowerFrozenArray(const Instruction &inst);
  void storeHostResult(const Lowered &value, const Type *from, const Type *to,
                       size_t &slot);
  void lowerHostReturn(const Instruction &inst);

  // LowerLists.cpp: lists in host code; false where the instruction is
  // no list operation.
  bool lowerList(const Instruction &inst);
  llvm::Value *listLength(llvm::Value *list);
  /// Pointer to the list's first item, of `element`'s memory type.
  llvm::Value *listItems(llvm::Value *list, const Type *element);
  void storeListItem(llvm::Value *at, const Instruction *value,
                     const Type *element);
  /// Item `index` of a list of `element`s as a value (bool as i1).
  llvm::Value *loadListItem(llvm::Value *list, const Type *element,
                            llvm::Value *index);
  /// `step(state, item)` over the items of a list from index `first` on,
  /// from state `initial`: the last state.
  llvm::Value *
  foldList(llvm::Value *list, const Type *element, llvm::Value *first,
           llvm::Value *initial,
           const std::function<llvm::Value *(llvm::Value *, llvm::Value *)>
               &step);
  /// `x in c` and `x not in c` of a list (a loop) or a tuple of numbers.
  llvm::Value *lowerMembership(const Instruction &inst);
  /// sum, min or max of a list (min and max of an empty one: Python's
  /// ValueError), or sorted(): a new list.
  Lowered lowerListBuiltin(const Instruction &inst, const std::string &name);
  /// A prange body reads the list that is the loop's argument `k`: an
  /// error at the body's first use of it (its kernel reads device memory).
  [[noreturn]] void refuseListInKernel(const Parfor &parfor, size_t k);

  // LowerRandom.cpp
  /// np.random's draw (compiler/RandomDraws.h).
  Lowered lowerRandom(const Instruction &inst);

  // LowerDebug.cpp
  bool checksIndices() const { return options_.boundscheck || options_.debug; }
  /// A check at the instruction being lowered; returns its site number.
  int addDebugSite(DebugSite::Kind kind, const std::string &detail,
                   int axis = 0);
  llvm::Function *reportFunction();
  /// Slot k of this function's pending failure: site, index, extent.
  llvm::Value *pendingSlot(unsigned k);
  /// Keeps `site` (the function's first failure) when `failed`.
  void pend(llvm::Value *failed, int site, llvm::Value *index,
            llvm::Value *extent);
  void pend(llvm::Value *failed, llvm::Value *site, llvm::Value *index,
            llvm::Value *extent);
  /// At a return: reports the pending failure to the debug record.
  void flushPending();
  /// `wrapped` <u `extent`, in the in-bounds marker (DebugRecord.h) that
  /// lets the fast-path pass find the check after optimisation; `index` is
  /// the index before NumPy's wrap-around gave `wrapped`.
  llvm::Value *inBounds(llvm::Value *wrapped, llvm::Value *index,
                        llvm::Value *extent);
  /// Which array `array` is, for messages, and its first axis as indexed
  /// (a view a[i] starts at axis 1 of a).
  std::string describeArray(const Instruction *array, int &firstAxis) const;
  /// Where an out-of-bounds element access of an array of this type goes
  /// instead, or nullptr (index 0 then stands in).
  llvm::Value *sinkFor(const Type *arrayType);
  Lowered lowerAssert(const Instruction &inst);
  Lowered lowerPrint(const Instruction &inst);
  /// A failed array-statement check in a kernel: a failed assert.
  Lowered lowerKernelFail(const Instruction &inst);
  /// A block a failed assert ends (BuildPyIR marks its return).
  bool isFailedAssert(const ir::Block *block);

  // LowerInstructions.cpp
  void lowerInstruction(const Instruction &inst);
  Lowered createPhi(const Type *t);
  void addIncoming(Lowered &phi, const Lowered &value, const Type *phiType,
                   const Type *valueType, llvm::BasicBlock *from);
  Lowered lowerGetAttr(const Instruction &inst);
  /// Element pointer of a[index...] or, with fewer indices, a view;
  /// `arrayInst` names the array in a failed check's message. A checked
  /// element access is safe as it is, or, given `guard`, sets it to the
  /// check's failure and the caller accesses through guardedAccess.
  /// Host code: raises (HostABI.h's spirjit_host_raise, kind 0 IndexError,
  /// 1 ZeroDivisionError) and returns where `failed` holds.
  void hostCheck(llvm::Value *failed, int kind, const std::string &message,
                 llvm::Value *got, llvm::Value *expected);
  Lowered index(const Lowered &array, const Type *arrayType,
                const Instruction *indexInst, const Instruction *arrayInst,
                llvm::Value **guard = nullptr);
  /// access() unless `failed` (then a load gives 0); no guard: access().
  llvm::Value *guardedAccess(llvm::Value *failed,
                             const std::function<llvm::Value *()> &access);

  const TypedFunction &typed_;
  const Target &target_;
  llvm::LLVMContext &context_;
  LoweringOptions options_;
  llvm::IRBuilder<> builder_;
  llvm::IRBuilder<> allocaBuilder_;
  llvm::Module *module_ = nullptr;
  FunctionMap &functions_;
  llvm::Function *function_ = nullptr;
  std::map<const Instruction *, Lowered> values_;
  std::map<const ir::Block *, llvm::BasicBlock *> startBlocks_, endBlocks_;
  std::vector<Lowered> arguments_;
  llvm::Value *groupScratch_ = nullptr; // i8 addrspace(local)*, if used
  /// Indices that need no negative wrap-around (compiler/NonNegative.h).
  std::unordered_set<const Instruction *> nonNegative_;
  llvm::Value *hostContext_ = nullptr; // i8*, host functions only
  llvm::Value *hostResult_ = nullptr;  // i8*, host functions only
  llvm::Value *debugRecord_ = nullptr;  // i8 addrspace(global)*, if checked
  llvm::Value *debugPending_ = nullptr; // [3 x i64]*, once a check pends
  /// i64*, once np.random draws: a kernel's count of its draws; in host
  /// code where the thread's key is written.
  llvm::Value *randomSlot_ = nullptr;
  const Instruction *current_ = nullptr; // the instruction being lowered
  bool skippedAsserts_ = false; // branches into failed asserts dropped
};

/// Adds the host ABI's wrapper of the lowered host function `inner`.
void addHostWrapper(llvm::Module &module, llvm::Function *inner);

} // namespace spirjit::lower
