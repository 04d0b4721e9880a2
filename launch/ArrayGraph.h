// DeviceArrays that compile themselves: the array-expression graph, its
// evaluation as fused kernels, and when it happens. No Python.
//
// An ArrayNode is a DeviceArray's value: memory on one device, or an
// operation not computed yet over other nodes (a NumPy ufunc or a
// @spirjit.vectorize function applied element by element with NumPy's
// loop dtypes, or a reduction over some axes). Operations record nodes;
// nothing runs until a value is needed. Then evaluate() turns the node
// into memory: every chain of pending element-wise nodes below it becomes
// one kernel (compiler/ArrayKernel), with a trailing reduction as a second
// form of the same kernel; element-wise nodes are computed where they are
// used (one a DeviceArray holds is stored only when it is itself
// evaluated), so intermediates are never stored. Kernels are cached per
// expression (in memory, and on disk by the kernel cache) and launched in
// order on the device's queue.
//
// When: a caller evaluates a node it must read; flushPending() evaluates
// every pending node a DeviceArray holds, and must run before anything
// writes memory that pending nodes may read (a kernel launch, a host
// write, an in-place operation), which keeps NumPy's eager semantics. A
// chain deeper than kMaxDepth or reading more than kMaxInputs arrays is
// evaluated as it is recorded, so a loop that never reads runs in bounded
// memory. SPIRJIT_LAZY=0 evaluates every node as it is recorded.
#pragma once

#include "compiler/ArrayKernel.h"
#include "compiler/Types.h"
#include "launch/Launcher.h"
#include "runtime/Device.h"

#include <memory>
#include <string>
#include <vector>

namespace spirjit::launch {

struct ArrayNode;
using NodeRef = std::shared_ptr<ArrayNode>;

/// Memory seen as an array: the view a node's value lives in.
struct ArrayView {
  std::shared_ptr<runtime::Buffer> buffer;
  int64_t offset = 0; // bytes
  std::vector<int64_t> shape, strides; // strides in bytes
};

struct ArrayNode {
  enum class Kind { Memory, Scalar, Apply, Reduce, Index };
  Kind kind = Kind::Memory;
  /// The value's dtype: the compiler's type, NumPy's name, its size.
  const Type *element = nullptr;
  std::string dtype;
  int64_t itemsize = 0;
  std::vector<int64_t> shape;
  std::shared_ptr<runtime::Device> device;
  runtime::UsmKind usm = runtime::UsmKind::Device;

  /// Memory: where the value is.
  ArrayView view;
  /// Scalar: a kernel parameter's bytes (a complex number's parts in two).
  uint64_t scalar[2] = {0, 0};
  /// Apply: the ufunc (NumPy's name), its operands converted to
  /// (*loop)[i], its result of dtype loop->back() converted to `dtype`.
  /// Both interned (internName, internLoop): recording copies no text,
  /// and the kernel's form is keyed by the pointers.
  const std::string *function = nullptr;
  std::vector<NodeRef> operands;
  const std::vector<std::string> *loop = nullptr;
  /// Apply "call": the function called on the elements (its result
  /// converted to loop->back()).
  std::shared_ptr<const ElementFunction> callee;
  /// Reduce: operands[0] folded over `axes` (sorted) in `accumulator`.
  /// Index: int64, the index along axes[0] (np.arange seen at `shape`).
  ArrayExpression::Reduction reduction = ArrayExpression::Reduction::Sum;
  std::vector<int> axes;
  std::string accumulator;

  /// The operation that recorded it, for errors at evaluation. `file` is
  /// interned (internFileName): recording copies no text.
  const char *file = "<unknown>";
  int line = 0;
  /// DeviceArrays holding this node (ArrayHolder).
  int holders = 0;
  /// Pending nodes on the longest path down, and arrays read.
  int depth = 0, inputs = 0;

  bool pending() const {
    return kind == Kind::Apply || kind == Kind::Reduce || kind == Kind::Index;
  }
};

/// Bounds on what one recorded expression may grow to before it runs.
constexpr int kMaxDepth = 32;
constexpr int kMaxInputs = 12;

/// Whether operations record (SPIRJIT_LAZY unset or not "0").
bool lazyEvaluation();

/// `name` kept for the process's life, one copy per distinct text: what
/// ArrayNode::file points to. A program has few files, and a node's
/// recording site is then a pointer, not a string to allocate and free.
const char *internFileName(const char *name);
/// The same for a ufunc's name and for a loop's dtype names.
const std::string *internName(const std::string &name);
const std::vector<std::string> *internLoop(
    const std::vector<std::string> &names);

NodeRef memoryNode(ArrayView view, const Type *element, std::string dtype,
                   int64_t itemsize, runtime::UsmKind usm);
NodeRef scalarNode(const Type *element, std::string dtype, int64_t itemsize,
                   const uint64_t bytes[2],
                   std::shared_ptr<runtime::Device> device);
/// The index along `axis` of an array of `shape` (np.arange broadcast
/// along the other axes), computed where it is used: no memory.
NodeRef indexNode(std::vector<int64_t> shape, int axis,
                  std::shared_ptr<runtime::Device> device);
/// A ufunc over `operands` (broadcast to `shape`), recorded; an operand
/// that would make the expression too big is evaluated first.
NodeRef applyNode(const std::string *function, std::vector<NodeRef> operands,
                  const std::vector<std::string> *loop, const Type *element,
                  std::string dtype, int64_t itemsize,
                  std::vector<int64_t> shape, const char *file, int line);
/// `callee` called on the elements of `operands`, recorded as applyNode
/// records a ufunc (`file` interned, the loop interned here).
NodeRef callNode(std::shared_ptr<const ElementFunction> callee,
                 std::vector<NodeRef> operands,
                 const std::vector<std::string> &loop, const Type *element,
                 std::string dtype, int64_t itemsize,
                 std::vector<int64_t> shape, const char *file, int line);
/// Types `callee` called on elements of the dtypes `loop` (the inputs',
/// then the result's) as a kernel calls it, with no device: the user's
/// errors in it raise at the call that records it, as UserErrors naming
/// its own file and line, rather than when the value is computed.
void checkCall(const std::shared_ptr<const ElementFunction> &callee,
               const std::vector<std::string> &loop);
/// A reduction of `operand` over `axes`, recorded; the result has the
/// other axes. `element`/`dtype` are the result's.
NodeRef reduceNode(NodeRef operand, ArrayExpression::Reduction reduction,
                   std::vector<int> axes, std::string accumulator,
                   const Type *element, std::string dtype, int64_t itemsize,
                   const char *file, int line);

/// Computes a pending node into new C-contiguous memory of its device;
/// the node becomes Memory. Nothing for a node that is not pending.
void evaluate(ArrayNode &node);

/// Evaluation by the host's NumPy, in place (API.md, "Where the work
/// runs": on a device whose memory the host addresses, an operation may
/// call NumPy's own implementation when that is faster). A kernel launch
/// on a CPU runtime costs 20-30 us however small the array, where NumPy
/// takes 1-5 us. The evaluator writes `node`'s
/// value into `out` (host-addressable, C-contiguous, the node's shape and
/// dtype) after the device has finished what it was given, and returns
/// false to leave it to a kernel. It is set by the Python bindings (they
/// own NumPy); launch/ holds no Python.
using HostEvaluator = bool (*)(ArrayNode &node, const ArrayView &out);
void setHostEvaluator(HostEvaluator evaluator);
HostEvaluator hostEvaluator();
/// Whether evaluate() would hand `node` to the host evaluator; then
/// waitForHostRead() lets the host read what it reads. (A DeviceArray
/// read back by the host uses both to compute a small value straight
/// into the NumPy array it returns.)
bool evaluatesOnHost(const ArrayNode &node);
void waitForHostRead(const ArrayNode &node);
/// At most this many elements in every array a node reads or makes are
/// computed on the host (where a launch costs more than the work).
constexpr int64_t kHostElements = 1 << 14;
/// A form of elementwise value (its operations, dtypes, layout) computed
/// on the host more often than this on a thread is compiled for the host
/// and run on the calling thread (runtime::hostDevice()): NumPy's
/// function per operation costs about 1 us each, the compiled loop a
/// fraction of that for the whole expression; the first few times a form
/// is seen NumPy computes it, so that a value computed once pays no
/// compile.
constexpr int kHostCompileAfter = 2;
/// For a node that evaluatesOnHost(), after waitForHostRead(): its value
/// computed into `out` (host-addressable memory, C-contiguous, the node's
/// shape and dtype) by machine code compiled for the host, where the
/// node's form has been seen more than kHostCompileAfter times; false
/// leaves it to the host evaluator or the device.
bool computeOnHost(ArrayNode &node, const ArrayView &out);
/// Computes `node` (any kind but Reduce) into `target` (its shape, any
/// strides; `element` its dtype), as NumPy would: as if the value were
/// complete before the first store.
void evaluateInto(ArrayNode &node, const ArrayView &target,
                  const Type *targetElement, const std::string &targetDType);
/// Evaluates every pending node a DeviceArray holds, oldest first.
void flushPending();
/// Evaluates every pending node a DeviceArray holds that reads `buffer`,
/// oldest first: before anything may write it.
void flushReaders(const runtime::Buffer &buffer);
/// Entries of the list flushPending() walks (for tests of its bound).
size_t registeredNodes();
/// Whether any node may be pending (cheap).
bool anyPending();

/// The fused kernels' caches' counts summed (KernelCache::statistics);
/// `expressions` gets how many distinct expressions there are.
CacheStatistics arrayKernelStatistics(int &expressions);
/// How many values computeOnHost() (or a store on the host) computed by
/// machine code on the calling thread, in the process.
int64_t hostComputedValues();

/// The specialisations of every fused kernel compiled so far, each with
/// its kernel's name, in the order the expressions were first compiled:
/// the dump tool compiles them again for another target (their CUDA form,
/// run on an OpenCL device). Valid while the process lives.
std::vector<std::pair<std::string, KernelRequest>> arrayKernelRequests();

/// Keeps count of the DeviceArrays holding a node (ArrayNode::holders);
/// a held pending node is registered for flushPending().
void holdNode(const NodeRef &node);
void releaseNode(ArrayNode &node);

} // namespace spirjit::launch
