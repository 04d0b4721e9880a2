// The array-expression graph and its evaluation: see ArrayGraph.h.
#include "launch/ArrayGraph.h"

#include "compiler/Pipeline.h"
#include "frontend/Diagnostics.h"
#include "launch/ArrayKernels.h"
#include "launch/Launcher.h"
#include "runtime/DeviceError.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <unordered_set>
namespace spirjit::launch {

namespace {

/// Held pending nodes, in the order they were recorded.
std::vector<std::weak_ptr<ArrayNode>> &registry() {
  static std::vector<std::weak_ptr<ArrayNode>> nodes;
  return nodes;
}

int depthOf(const std::vector<NodeRef> &operands) {
  int depth = 0;
  for (const NodeRef &o : operands)
    if (o->pending())
      depth = std::max(depth, o->depth);
  return depth + 1;
}

int inputsOf(const std::vector<NodeRef> &operands) {
  int inputs = 0;
  for (const NodeRef &o : operands)
    inputs += o->pending() ? o->inputs : (o->kind == ArrayNode::Kind::Memory);
  return inputs;
}

} // namespace

bool lazyEvaluation() {
  static const bool lazy = [] {
    const char *v = std::getenv("SPIRJIT_LAZY");
    return !(v && std::string(v) == "0");
  }();
  return lazy;
}

const char *internFileName(const char *name) {
  // Never destroyed: nodes alive at exit point into it. A set's elements
  // stay where they are as it grows.
  static auto &names = *new std::unordered_set<std::string>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  return names.emplace(name).first->c_str();
}

const std::string *internName(const std::string &name) {
  static auto &names = *new std::unordered_set<std::string>(); // as above
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  return &*names.emplace(name).first;
}

const std::vector<std::string> *internLoop(
    const std::vector<std::string> &names) {
  static auto &loops = *new std::set<std::vector<std::string>>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  return &*loops.insert(names).first;
}

NodeRef memoryNode(ArrayView view, const Type *element, std::string dtype,
                   int64_t itemsize, runtime::UsmKind usm) {
  auto node = std::make_shared<ArrayNode>();
  node->kind = ArrayNode::Kind::Memory;
  node->element = element;
  node->dtype = std::move(dtype);
  node->itemsize = itemsize;
  node->shape = view.shape;
  node->device = view.buffer->device();
  node->usm = usm;
  node->view = std::move(view);
  return node;
}

NodeRef scalarNode(const Type *element, std::string dtype, int64_t itemsize,
                   const uint64_t bytes[2],
                   std::shared_ptr<runtime::Device> device) {
  auto node = std::make_shared<ArrayNode>();
  node->kind = ArrayNode::Kind::Scalar;
  node->element = element;
  node->dtype = std::move(dtype);
  node->itemsize = itemsize;
  node->scalar[0] = bytes[0];
  node->scalar[1] = bytes[1];
  node->device = std::move(device);
  return node;
}

NodeRef indexNode(std::vector<int64_t> shape, int axis,
                  std::shared_ptr<runtime::Device> device) {
  auto node = std::make_shared<ArrayNode>();
  node->kind = ArrayNode::Kind::Index;
  node->element = types::int64();
  node->dtype = "int64";
  node->itemsize = 8;
  node->shape = std::move(shape);
  node->axes = {axis};
  node->device = std::move(device);
  node->depth = 1;
  return node;
}

NodeRef applyNode(const std::string *function, std::vector<NodeRef> operands,
                  const std::vector<std::string> *loop, const Type *element,
                  std::string dtype, int64_t itemsize,
                  std::vector<int64_t> shape, const char *file, int line) {
  // Too big to grow: what is pending below runs now.
  if (depthOf(operands) > kMaxDepth || inputsOf(operands) > kMaxInputs)
    for (NodeRef &o : operands)
      evaluate(*o);
  auto node = std::make_shared<ArrayNode>();
  node->kind = ArrayNode::Kind::Apply;
  node->element = element;
  node->dtype = std::move(dtype);
  node->itemsize = itemsize;
  node->shape = std::move(shape);
  node->usm = runtime::UsmKind::Host;
  for (const NodeRef &o : operands) {
    if (!node->device && o->kind != ArrayNode::Kind::Scalar)
      node->device = o->device;
    if (o->kind != ArrayNode::Kind::Scalar)
      node->usm = runtime::combineUsmKinds(node->usm, o->usm);
  }
  if (!node->device)
    node->device = operands.at(0)->device;
  node->depth = depthOf(operands);
  node->inputs = inputsOf(operands);
  node->function = function;
  node->operands = std::move(operands);
  node->loop = loop;
  node->file = file;
  node->line = line;
  return node;
}

NodeRef callNode(std::shared_ptr<const ElementFunction> callee,
                 std::vector<NodeRef> operands,
                 const std::vector<std::string> &loop, const Type *element,
                 std::string dtype, int64_t itemsize,
                 std::vector<int64_t> shape, const char *file, int line) {
  NodeRef node = applyNode(internName("call"), std::move(operands),
                           internLoop(loop), element, std::move(dtype),
                           itemsize, std::move(shape), file, line);
  node->callee = std::move(callee);
  return node;
}

void checkCall(const std::shared_ptr<const ElementFunction> &callee,
               const std::vector<std::string> &loop) {
  // The kernel of `call` over scalar parameters, typed as a launch would
  // type it (the call's specialisation is the one a fused kernel makes).
  using Value = ArrayExpression::Value;
  ArrayExpression e;
  e.functions = {callee};
  e.parameterCount = int(loop.size()) - 1;
  Value call{Value::Kind::Apply, 0, "call", {}, ""};
  call.operands.push_back(int(loop.size()) - 1);
  KernelRequest request;
  for (int p = 0; p < e.parameterCount; ++p) {
    e.values.push_back({Value::Kind::Scalar, p, "", {}, ""});
    call.operands.push_back(p);
    request.argumentTypes.push_back(types::fromDTypeName(loop[size_t(p)]));
  }
  e.values.push_back({Value::Kind::Function, 0, "", {}, ""});
  e.values.push_back(std::move(call));
  e.values.push_back(
      {Value::Kind::Cast, 0, "", {int(e.values.size()) - 1}, loop.back()});
  e.result = int(e.values.size()) - 1;
  request.argumentTypes.push_back(
      types::array(types::fromDTypeName(loop.back()), 1, 'C'));
  std::shared_ptr<FunctionDescription> kernel = arrayKernel(e, "array_map");
  request.function = kernel.get();
  try {
    requiredItemRank(request, DeviceCapabilities());
  } catch (const UserError &error) {
    if (error.filename() != kArrayExpressionFile)
      throw;
    // What the kernel does around the call is the conversion of its
    // result: the function returned what is no number.
    const FunctionDescription &f = *callee->description;
    std::string inputs;
    for (size_t i = 0; i + 1 < loop.size(); ++i)
      inputs += (i ? ", " : "") + loop[i];
    throw UserError(error.kind(), f.filename, f.firstLine,
                    f.qualifiedName + "(" + inputs +
                        ") must return a number, as a vectorize function: " +
                        error.message());
  }
}

NodeRef reduceNode(NodeRef operand, ArrayExpression::Reduction reduction,
                   std::vector<int> axes, std::string accumulator,
                   const Type *element, std::string dtype, int64_t itemsize,
                   const char *file, int line) {
  auto node = std::make_shared<ArrayNode>();
  node->kind = ArrayNode::Kind::Reduce;
  node->element = element;
  node->dtype = std::move(dtype);
  node->itemsize = itemsize;
  std::sort(axes.begin(), axes.end());
  for (int d = 0; d < int(operand->shape.size()); ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d))
      node->shape.push_back(operand->shape[d]);
  node->device = operand->device;
  node->usm = operand->usm;
  node->depth = 1;
  node->inputs = 1;
  node->reduction = reduction;
  node->axes = std::move(axes);
  node->accumulator = std::move(accumulator);
  node->operands = {std::move(operand)};
  node->file = file;
  node->line = line;
  return node;
}

namespace {
HostEvaluator theHostEvaluator = nullptr;

int64_t elementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

/// Whether `node` goes to the host evaluator: its device's memory is the
/// host's (a CPU runtime's, every buffer it reads host-addressable), and
/// every array it reads or makes is small.
bool onHost(const ArrayNode &node) {
  if (!theHostEvaluator || node.device->info().deviceType != "cpu" ||
      !node.device->allocatesHostAddressable(node.usm))
    return false;
  std::vector<const ArrayNode *> stack = {&node};
  while (!stack.empty()) {
    const ArrayNode *n = stack.back();
    stack.pop_back();
    // NumPy has no compiled form of a function of the user's (calling
    // the Python function per element would be slower, and Python's
    // semantics rather than the kernel's).
    if (n->callee)
      return false;
    if (n->kind == ArrayNode::Kind::Memory &&
        (!n->view.buffer->hostAddressable() ||
         n->view.buffer->device() != node.device))
      return false;
    if (n->kind != ArrayNode::Kind::Scalar &&
        elementsOf(n->shape) > kHostElements)
      return false;
    for (const NodeRef &o : n->operands)
      stack.push_back(o.get());
  }
  return true;
}

/// The host evaluator's try, once the device has done what it was given
/// (which may write what the node reads).
bool evaluatedOnHost(ArrayNode &node, const ArrayView &out) {
  waitForHostRead(node);
  return computeOnHost(node, out) || theHostEvaluator(node, out);
}

std::string recordedAt(const ArrayNode &node) {
  return std::string(node.file) + ":" + std::to_string(node.line) +
         ": computing the DeviceArray operation recorded here: ";
}
} // namespace

bool computeOnHost(ArrayNode &node, const ArrayView &out) {
  return computeMapOnHost(node, out, node.element, node.dtype, node.itemsize);
}

bool evaluatesOnHost(const ArrayNode &node) {
  return node.pending() && onHost(node);
}

void waitForHostRead(const ArrayNode &node) {
  uint64_t upTo = launchesSoFar();
  node.device->finish();
  releaseFinishedLaunches(*node.device, upTo);
}

void setHostEvaluator(HostEvaluator evaluator) {
  theHostEvaluator = evaluator;
}
HostEvaluator hostEvaluator() { return theHostEvaluator; }

void evaluate(ArrayNode &node) {
  if (!node.pending())
    return;
  ArrayView out;
  try {
    out = contiguous(node.shape, node.itemsize, node.device, node.usm);
    if (!onHost(node) || !evaluatedOnHost(node, out)) {
      if (node.kind != ArrayNode::Kind::Reduce)
        computeMap(node, out, node.element, node.dtype, node.itemsize);
      else
        computeReduce(node, out);
    }
  } catch (const UserError &e) {
    // An error in a function of the user's that the kernel calls names
    // its own line already.
    if (e.filename() != kArrayExpressionFile)
      throw;
    // A kernel spirjit wrote that does not compile is spirjit's bug, but
    // the user's operation is the line they can act on.
    throw UserError(e.kind(), node.file, node.line, e.what());
  } catch (const runtime::DeviceError &e) {
    // Failures at evaluation name the operation that recorded the value.
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    std::string suffix = ": " + e.codeName();
    if (what.size() >= suffix.size() &&
        what.compare(what.size() - suffix.size(), suffix.size(), suffix) == 0)
      what.resize(what.size() - suffix.size());
    throw runtime::DeviceError(e.backend(), e.code(), e.codeName(),
                               recordedAt(node) + what, e.buildLog());
  } catch (const LaunchError &e) {
    throw LaunchError(e.kind(), recordedAt(node) + e.what());
  }
  node.kind = ArrayNode::Kind::Memory;
  node.view = std::move(out);
  node.operands.clear();
  node.depth = 0;
  node.inputs = 0;
}

void evaluateInto(ArrayNode &node, const ArrayView &target,
                  const Type *targetElement, const std::string &targetDType) {
  // Values that read the target are computed before it is written.
  if (anyPending())
    flushReaders(*target.buffer);
  // What the node reads that the target overlaps (other than the same
  // elements in the same places) must be read before any store: the value
  // is computed into its own memory first, as NumPy does.
  // (A graph has few nodes: a flat list beats a set's allocations.)
  std::vector<const ArrayNode *> seen;
  seen.reserve(16);
  auto [low, high] = span(target, 1);
  std::vector<ArrayNode *> stack = {&node};
  stack.reserve(16);
  bool overlaps = false;
  while (!stack.empty() && !overlaps) {
    ArrayNode *n = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), n) != seen.end())
      continue;
    seen.push_back(n);
    if (n->kind == ArrayNode::Kind::Memory) {
      if (n->view.buffer != target.buffer)
        continue;
      ArrayView b = broadcast(n->view, target.shape);
      if (b.offset == target.offset && b.strides == target.strides &&
          n->itemsize == int64_t(targetElement->bits / 8))
        continue;
      auto [l, h] = span(n->view, n->itemsize);
      overlaps = l < high + 16 && low < h + 16;
      continue;
    }
    if (n->kind == ArrayNode::Kind::Reduce) {
      evaluate(*n);
      stack.push_back(n);
      seen.pop_back();
      continue;
    }
    for (const NodeRef &o : n->operands)
      stack.push_back(o.get());
  }
  int64_t itemsize = itemsizeOf(targetElement);
  if (overlaps && node.pending()) {
    evaluate(node); // now memory of its own, which the kernel below copies
  } else if (overlaps) {
    auto staged = std::make_shared<ArrayNode>(node);
    staged->view = contiguous(node.shape, node.itemsize, node.device,
                              runtime::UsmKind::Device);
    computeMap(node, staged->view, node.element, node.dtype, node.itemsize);
    computeMap(*staged, target, targetElement, targetDType, itemsize);
    return;
  }
  // A small store into memory the host addresses, as a small value
  // (onHost): on the calling thread once its form is warm.
  if (target.buffer->hostAddressable() &&
      target.buffer->device() == node.device &&
      elementsOf(target.shape) <= kHostElements && onHost(node)) {
    waitForHostRead(node);
    if (computeMapOnHost(node, target, targetElement, targetDType, itemsize))
      return;
  }
  computeMap(node, target, targetElement, targetDType, itemsize);
}

bool anyPending() { return !registry().empty(); }

size_t registeredNodes() { return registry().size(); }


/// A registry entry no flush needs: gone, computed, or held by no array.
static bool isStale(const std::weak_ptr<ArrayNode> &weak) {
  NodeRef n = weak.lock();
  return !n || !n->pending() || n->holders == 0;
}

namespace {
bool readsBuffer(const ArrayNode &root, const runtime::Buffer &buffer) {
  std::vector<const ArrayNode *> stack = {&root};
  std::vector<const ArrayNode *> seen; // few: a flat list beats a set
  while (!stack.empty()) {
    const ArrayNode *n = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), n) != seen.end())
      continue;
    seen.push_back(n);
    if (n->kind == ArrayNode::Kind::Memory && n->view.buffer.get() == &buffer)
      return true;
    for (const NodeRef &o : n->operands)
      stack.push_back(o.get());
  }
  return false;
}
} // namespace

void flushReaders(const runtime::Buffer &buffer) {
  auto &nodes = registry();
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(), isStale),
              nodes.end());
  // Evaluating one may compute others: collect them first.
  std::vector<NodeRef> readers;
  for (auto &weak : nodes)
    if (NodeRef node = weak.lock())
      if (node->pending() && node->holders > 0 && readsBuffer(*node, buffer))
        readers.push_back(std::move(node));
  for (const NodeRef &node : readers)
    evaluate(*node);
}

void flushPending() {
  auto &nodes = registry();
  while (!nodes.empty()) {
    std::vector<std::weak_ptr<ArrayNode>> batch;
    batch.swap(nodes);
    for (auto &weak : batch)
      if (NodeRef node = weak.lock())
        if (node->pending() && node->holders > 0)
          evaluate(*node);
  }
}

void holdNode(const NodeRef &node) {
  if (++node->holders != 1 || !node->pending())
    return;
  auto &nodes = registry();
  // Entries of nodes gone or computed are dropped now and then, so a loop
  // that never reads keeps a bounded list.
  static size_t compactAt = 64;
  if (nodes.size() >= compactAt) {
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), isStale),
                nodes.end());
    compactAt = std::max<size_t>(64, nodes.size() * 2);
  }
  nodes.push_back(node);
}

void releaseNode(ArrayNode &node) { --node.holders; }

} // namespace spirjit::launch
