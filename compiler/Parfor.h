// The parfor stage: a jit function's prange loops become kernels.
//
// Contract: requires the typed host function (FunctionKind::Host). Finds
// every outermost loop over `prange(...)` and replaces it by one `launch`
// of index k (its Parfor): its operands are each dimension's start, stop
// and step, then the values the loop's kernel takes; it returns a tuple of
// the loop's reduction results, which `tuple_get`s hand to the code after
// the loop. The host function stays
// typed and verified. Each loop becomes the untyped pyir of a kernel
// (Parfor::kernel holds it in a FunctionDescription, as a @kernel's
// bytecode would be), typed and compiled later per device like any kernel.
//
// What a loop becomes:
//  - Up to 3 perfectly nested pranges (the inner one's range does not
//    depend on the outer index, and nothing else sits between them) form
//    a 1-3-D Range; each work-item runs the body once for its indices.
//  - A loop with reductions (a scalar updated by +=, -=, *=, |=, &=, ^=,
//    s = min(s, x) or s = max(s, x), possibly under ifs) is 1-D: each
//    work-item runs the loop over its share of the iterations (a
//    contiguous chunk, or every items-th one; what does not fill a share
//    runs in a second launch) into private accumulators
//    and writes them to one partial array per reduction; the host combines
//    the partials with the initial value.
//  - A pndindex loop over 1-3 extents is a Range of as many dimensions,
//    its index the tuple of the ids; reducing, a 1-D loop over all the
//    iterations whose flat index the kernel takes apart (extents are
//    arguments then).
//  - With mapRows (GPUs: HostRequest::mapRows), a perfect nest may end in
//    one `range` loop whose iterations are independent (ParforRows.h
//    states when): it becomes the launch's last, fastest-varying
//    dimension, so that neighbouring work-items read neighbouring
//    elements.
//  - Loops inside the body (pranges included) stay loops in the kernel.
//  - A scalar the body assigns in every iteration without reading it, and
//    the code after the loop reads, has the last iteration's value (as in
//    numba): the loop runs as a reducing one whose op is Last.
// A scalar the body assigns and reads across iterations in any other way,
// `break` or `return` in the body, and the loop's index read after it are
// UserErrors at the line.
#pragma once

#include "compiler/TypeInference.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace spirjit {

namespace ir {
struct Loop;
}

/// Last: not a reduction but numba's lastprivate, a variable the body
/// assigns in every iteration and never reads, read after the loop: its
/// value from the last iteration (what the last partial holds).
enum class ReductionOp { Add, Mul, Min, Max, Or, And, Xor, Last };

struct Parfor {
  int index = 0;
  int line = 0; // of the prange loop
  int dims = 1; // of the iteration space
  /// What became of an inner range loop (the row loop) the nest could end
  /// in: mapped onto a launch dimension, or kept and why; empty when the
  /// loop has none. The parfor dump shows it.
  std::string rows;
  /// Kept only because the request did not map rows: the same loop on a
  /// device that wants coalescing would become a launch dimension.
  bool rowsMappable = false;
  /// A reducing loop launches 1-D whatever its iteration space.
  int launchDims() const { return reductions.empty() ? dims : 1; }
  /// Per dimension, outermost first: the prange's arguments in the host
  /// (1 to 3: stop; start, stop; start, stop, step), a pndindex's extent.
  std::vector<std::vector<const ir::Instruction *>> ranges;
  /// In the host: the values the kernel takes after its item, in order.
  std::vector<const ir::Instruction *> arguments;
  /// The kernel's parameter types after the item: one per argument, then
  /// for a reducing loop four int64s, first, chunk, trips and stride
  /// (work-item g runs iterations first + g * chunk + t * stride for t in
  /// range(trips), the same count in every work-item), and one partial
  /// array per reduction.
  std::vector<const Type *> kernelArgumentTypes;
  struct Reduction {
    ReductionOp op;
    const Type *type;                 // of the accumulator, materialised
    const ir::Instruction *initial;   // in the host
  };
  std::vector<Reduction> reductions;
  /// The kernel: a description whose prebuilt pyir is the outlined loop.
  std::shared_ptr<FunctionDescription> kernel;
};

std::vector<Parfor> outlineParfors(TypedFunction &host, bool mapRows = false);

/// The prange or pndindex call a loop of typed pyir iterates over, or
/// nullptr: the loop's body runs in a kernel.
ir::Instruction *parallelCallOf(const ir::Loop &loop);
/// The call of one of `callees` (by their typed names) that a header's loop
/// iterates over, or nullptr.
ir::Instruction *loopCallOf(const ir::Loop &loop,
                            std::initializer_list<const char *> callees);
/// The prange call (not pndindex) a header's loop iterates over, or nullptr.
ir::Instruction *prangeOf(const ir::Loop &loop);
/// A loop header's condbr: its true target is the body, its false target
/// the exit; nullptr if the header ends otherwise.
ir::Instruction *headerBranch(const ir::Loop &loop);
/// The phis of a loop's header: the values its iterations carry.
std::vector<ir::Instruction *> headerPhis(const ir::Loop &loop);

/// The identity of `op` on values of `type`, as the kernel starts each
/// accumulator.
ConstValue reductionIdentity(ReductionOp op, const Type *type);

} // namespace spirjit
