// The array-expression graph and its evaluation: see ArrayGraph.h.
#include "launch/ArrayGraph.h"

#include "frontend/Diagnostics.h"
#include "launch/Launcher.h"
#include "runtime/DeviceError.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace spirjit::launch {

namespace {

using Expression = ArrayExpression;

/// Held pending nodes, in the order they were recorded.
std::vector<std::weak_ptr<ArrayNode>> &registry() {
  static std::vector<std::weak_ptr<ArrayNode>> nodes;
  return nodes;
}

int64_t itemsizeOf(const Type *element);

ArrayView contiguous(const std::vector<int64_t> &shape, int64_t itemsize,
                     const std::shared_ptr<runtime::Device> &device,
                     runtime::UsmKind usm) {
  ArrayView view;
  view.shape = shape;
  view.strides.resize(shape.size());
  int64_t stride = itemsize, count = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    view.strides[d] = stride;
    stride *= shape[d];
    count *= shape[d];
  }
  view.buffer = device->allocateUsm(static_cast<size_t>(count * itemsize),
                                    nullptr, usm);
  return view;
}

/// `view` seen at `shape` by NumPy's broadcasting.
ArrayView broadcast(const ArrayView &view, const std::vector<int64_t> &shape) {
  ArrayView b;
  b.buffer = view.buffer;
  b.offset = view.offset;
  b.shape = shape;
  size_t lead = shape.size() - view.shape.size();
  b.strides.assign(lead, 0);
  for (size_t d = 0; d < view.shape.size(); ++d)
    b.strides.push_back(view.shape[d] == 1 && shape[lead + d] != 1
                            ? 0
                            : view.strides[d]);
  return b;
}

/// The bytes [low, high) a view reaches.
std::pair<int64_t, int64_t> span(const ArrayView &v, int64_t itemsize) {
  int64_t low = v.offset, high = v.offset + itemsize;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0)
      return {v.offset, v.offset};
    int64_t reach = (v.shape[d] - 1) * v.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  return {low, high};
}

/// A kernel's parameters and expression, gathered from a node's graph.
struct Gathered {
  Expression expression;
  struct Parameter {
    bool array = false;
    /// An Index value's strides (in view.strides): merged with the
    /// arrays', then compiled in; not a kernel parameter.
    bool index = false;
    ArrayView view;        // array: at the iteration space's shape
    const Type *element = nullptr;
    int64_t itemsize = 0;
    uint64_t scalar[2] = {0, 0};
  };
  std::vector<Parameter> parameters;
  std::map<const ArrayNode *, int> values;
  /// The nodes gathered, alive until the launch: another thread may
  /// compute one meanwhile (compiles give up the caller's lock) and let
  /// go of its operands.
  std::vector<NodeRef> alive;
};

class Gatherer {
public:
  Gatherer(Gathered &g, const std::vector<int64_t> &shape,
           const ArrayNode *root)
      : g_(g), shape_(shape), root_(root) {}

  int value(ArrayNode &node) {
    auto known = g_.values.find(&node);
    if (known != g_.values.end())
      return known->second;
    // What someone else holds, and reductions, are computed on their own.
    if (&node != root_ && node.pending() &&
        node.kind != ArrayNode::Kind::Index &&
        (node.holders > 0 || node.kind == ArrayNode::Kind::Reduce))
      evaluate(node);
    int v = -1;
    switch (node.kind) {
    case ArrayNode::Kind::Memory:
      v = add({Expression::Value::Kind::Load, array(node), "", {}, ""});
      break;
    case ArrayNode::Kind::Scalar: {
      Gathered::Parameter p;
      p.element = node.element;
      p.scalar[0] = node.scalar[0];
      p.scalar[1] = node.scalar[1];
      g_.parameters.push_back(p);
      v = add({Expression::Value::Kind::Scalar,
               int(g_.parameters.size()) - 1, "", {}, ""});
      break;
    }
    case ArrayNode::Kind::Apply: {
      g_.alive.insert(g_.alive.end(), node.operands.begin(),
                      node.operands.end());
      std::vector<int> operands;
      for (size_t i = 0; i < node.operands.size(); ++i)
        operands.push_back(
            cast(value(*node.operands[i]), node.operands[i]->dtype,
                 node.loop[i]));
      v = add({Expression::Value::Kind::Apply, 0, node.function, operands,
               ""});
      v = cast(v, node.loop.back(), node.dtype);
      break;
    }
    case ArrayNode::Kind::Index: {
      Gathered::Parameter p;
      p.index = true;
      p.view.shape = shape_;
      size_t lead = shape_.size() - node.shape.size();
      p.view.strides.assign(shape_.size(), 0);
      int axis = node.axes[0];
      if (node.shape[axis] != 1)
        p.view.strides[lead + axis] = 1;
      g_.parameters.push_back(std::move(p));
      v = add({Expression::Value::Kind::Index,
               int(g_.parameters.size()) - 1, "", {}, ""});
      break;
    }
    case ArrayNode::Kind::Reduce:
      SPIRJIT_INTERNAL_CHECK(false, "a reduction gathered as a value");
    }
    g_.values[&node] = v;
    return v;
  }

private:
  int add(Expression::Value value) {
    g_.expression.values.push_back(std::move(value));
    return int(g_.expression.values.size()) - 1;
  }
  int cast(int v, const std::string &from, const std::string &to) {
    if (from == to)
      return v;
    return add({Expression::Value::Kind::Cast, 0, "", {v}, to});
  }
  /// The parameter of a node's memory: one per distinct view.
  int array(const ArrayNode &node) {
    ArrayView view = broadcast(node.view, shape_);
    for (size_t p = 0; p < g_.parameters.size(); ++p) {
      const Gathered::Parameter &q = g_.parameters[p];
      if (q.array && q.view.buffer == view.buffer &&
          q.view.offset == view.offset && q.view.strides == view.strides &&
          q.element == node.element)
        return int(p);
    }
    Gathered::Parameter p;
    p.array = true;
    p.view = std::move(view);
    p.element = node.element;
    p.itemsize = node.itemsize;
    g_.parameters.push_back(std::move(p));
    return int(g_.parameters.size()) - 1;
  }

  Gathered &g_;
  const std::vector<int64_t> &shape_;
  const ArrayNode *root_;
};

/// Dimensions merged where every view allows (NumPy's iterator does the
/// same): a C-contiguous operation of any rank becomes one dimension.
/// Extent-1 dimensions go. `views` all have `shape`.
std::vector<int64_t> coalesce(std::vector<int64_t> shape,
                              std::vector<std::vector<int64_t> *> strides) {
  std::vector<int64_t> merged;
  std::vector<std::vector<int64_t>> mergedStrides(strides.size());
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1)
      continue;
    bool joins = !merged.empty();
    for (size_t a = 0; joins && a < strides.size(); ++a)
      joins = (*strides[a])[d] == mergedStrides[a].front() * merged.front();
    if (joins) {
      merged.front() *= shape[d];
      continue;
    }
    merged.insert(merged.begin(), shape[d]);
    for (size_t a = 0; a < strides.size(); ++a)
      mergedStrides[a].insert(mergedStrides[a].begin(), (*strides[a])[d]);
  }
  if (merged.empty()) {
    merged.push_back(1);
    for (auto &s : mergedStrides)
      s.push_back(0);
  }
  for (size_t a = 0; a < strides.size(); ++a)
    *strides[a] = std::move(mergedStrides[a]);
  return merged;
}

std::map<std::string, std::unique_ptr<KernelCache>> &caches() {
  static std::map<std::string, std::unique_ptr<KernelCache>> all;
  return all;
}

/// Index values take their merged strides; the other parameters are
/// renumbered as the kernel sees them (index ones are not parameters).
void finishParameters(Gathered &g) {
  std::vector<int> slot(g.parameters.size(), -1);
  std::vector<Gathered::Parameter> kept;
  for (size_t p = 0; p < g.parameters.size(); ++p)
    if (!g.parameters[p].index) {
      slot[p] = int(kept.size());
      kept.push_back(g.parameters[p]);
    }
  for (Expression::Value &v : g.expression.values) {
    if (v.kind == Expression::Value::Kind::Index)
      v.strides = g.parameters[size_t(v.parameter)].view.strides;
    else if (v.kind == Expression::Value::Kind::Load ||
             v.kind == Expression::Value::Kind::Scalar)
      v.parameter = slot[size_t(v.parameter)];
  }
  g.parameters = std::move(kept);
  g.expression.parameterCount = int(g.parameters.size());
}

/// The kernel cache of each expression, by its text.
KernelCache &cacheFor(const Expression &expression) {
  auto &caches = launch::caches();
  std::string key = expression.text();
  auto it = caches.find(key);
  if (it != caches.end())
    return *it->second;
  const char *name = expression.form == Expression::Form::Map
                         ? "array_map"
                         : "array_reduce";
  auto cache = std::make_unique<KernelCache>(
      [expression, name] { return *arrayKernel(expression, name); },
      CompileOptions());
  return *caches.emplace(key, std::move(cache)).first->second;
}

/// Launches the gathered kernel over `range` with `out` last. Views have
/// `shape`, the shape the arguments are bound at.
void launch(const Gathered &g, const LaunchRange &range, const ArrayView &out,
            const Type *outElement, int64_t outItemsize,
            const std::shared_ptr<runtime::Device> &device) {
  size_t n = g.parameters.size() + 1;
  std::vector<ArgumentValue> args(n);
  auto bindArray = [](ArgumentValue &a, const ArrayView &view,
                      const Type *element, int64_t itemsize) {
    int rank = int(view.shape.size());
    a.kind = ArgumentValue::Kind::DeviceArray;
    a.type = types::array(element, rank,
                          layoutOf(view.shape.data(), view.strides.data(),
                                   rank, itemsize));
    a.shape = view.shape.data();
    a.strides = view.strides.data();
    a.itemsize = itemsize;
    a.buffer = &view.buffer;
    a.offset = view.offset;
  };
  for (size_t p = 0; p < g.parameters.size(); ++p) {
    const Gathered::Parameter &q = g.parameters[p];
    if (q.array) {
      bindArray(args[p], q.view, q.element, q.itemsize);
    } else {
      args[p].kind = ArgumentValue::Kind::Scalar;
      args[p].type = q.element;
      args[p].scalar[0] = q.scalar[0];
      args[p].scalar[1] = q.scalar[1];
    }
  }
  bindArray(args.back(), out, outElement, outItemsize);
  Event event;
  cacheFor(g.expression)
      .submit(event, range, args.data(), n, device, nullptr, 0, false);
}

/// out = the value of `node` (an Apply or Memory node of out's shape), one
/// Map kernel; `out` must not overlap what the node reads.
void computeMap(ArrayNode &node, ArrayView out, const Type *outElement,
                const std::string &outDType, int64_t outItemsize) {
  int64_t count = 1;
  for (int64_t e : out.shape)
    count *= e;
  if (count == 0)
    return;
  Gathered g;
  Gatherer gatherer(g, out.shape, &node);
  int v = gatherer.value(node);
  g.expression.result =
      node.dtype == outDType
          ? v
          : (g.expression.values.push_back(
                 {Expression::Value::Kind::Cast, 0, "", {v}, outDType}),
             int(g.expression.values.size()) - 1);
  std::vector<std::vector<int64_t> *> strides;
  for (Gathered::Parameter &p : g.parameters)
    if (p.array || p.index)
      strides.push_back(&p.view.strides);
  strides.push_back(&out.strides);
  std::vector<int64_t> shape = coalesce(out.shape, strides);
  for (Gathered::Parameter &p : g.parameters)
    if (p.array || p.index)
      p.view.shape = shape;
  out.shape = shape;
  finishParameters(g);
  g.expression.form = Expression::Form::Map;
  g.expression.rank = int(shape.size());
  LaunchRange range;
  if (shape.size() <= 3) {
    range.dims = int(shape.size());
    for (size_t d = 0; d < shape.size(); ++d)
      range.global[d] = shape[d];
  } else {
    range.dims = 1;
    range.global[0] = count;
  }
  launch(g, range, out, outElement, outItemsize, node.device);
}

int workGroupSize(const runtime::Device &device) {
  size_t limit = std::min<size_t>(256, device.info().maxWorkGroupSize
                                           ? device.info().maxWorkGroupSize
                                           : 256);
  int size = 1;
  while (size_t(size) * 2 <= limit)
    size *= 2;
  return size;
}

/// One pass of the Reduce kernel: rows of `g`'s (M, K) views into
/// `out` (M, groups).
void reducePass(Gathered &g, int64_t rows, int64_t k, int64_t groups,
                int local, const ArrayView &out, const Type *outElement,
                int64_t outItemsize,
                const std::shared_ptr<runtime::Device> &device) {
  finishParameters(g);
  Gathered::Parameter rowLength; // the kernel's last parameter, K
  rowLength.element = types::int64();
  rowLength.scalar[0] = static_cast<uint64_t>(k);
  g.parameters.push_back(rowLength);
  g.expression.parameterCount = int(g.parameters.size());
  g.expression.form = Expression::Form::Reduce;
  LaunchRange range;
  range.dims = 2;
  range.ndRange = true;
  range.global[0] = rows;
  range.global[1] = groups * local;
  range.local[0] = 1;
  range.local[1] = local;
  launch(g, range, out, outElement, outItemsize, device);
}

/// Computes a Reduce node into `out` (its result shape, C-contiguous).
void computeReduce(ArrayNode &node, const ArrayView &out) {
  ArrayNode &operand = *node.operands[0];
  const std::vector<int64_t> &shape = operand.shape;
  std::vector<int> kept, reduced;
  for (int d = 0; d < int(shape.size()); ++d)
    (std::binary_search(node.axes.begin(), node.axes.end(), d) ? reduced
                                                                : kept)
        .push_back(d);
  int64_t rows = 1, k = 1;
  for (int d : kept)
    rows *= shape[d];
  for (int d : reduced)
    k *= shape[d];
  if (rows == 0)
    return;
  const runtime::Device &device = *node.device;
  const Type *accElement = types::fromDTypeName(node.accumulator);
  int64_t accItemsize = itemsizeOf(accElement);

  Gathered g;
  Gatherer gatherer(g, shape, &node);
  g.expression.result = gatherer.value(operand);
  // Each view as (kept..., reduced...), each group of axes merged into
  // one; where a group does not merge, the operand is first computed into
  // memory in that order, where it does.
  std::vector<std::vector<int64_t>> keptStrides, reducedStrides;
  std::vector<int64_t> keptShape, reducedShape;
  for (int d : kept)
    keptShape.push_back(shape[d]);
  for (int d : reduced)
    reducedShape.push_back(shape[d]);
  std::vector<std::vector<int64_t>> ks, rs;
  for (Gathered::Parameter &p : g.parameters) {
    if (!p.array && !p.index)
      continue;
    std::vector<int64_t> a, b;
    for (int d : kept)
      a.push_back(p.view.strides[d]);
    for (int d : reduced)
      b.push_back(p.view.strides[d]);
    ks.push_back(a);
    rs.push_back(b);
  }
  std::vector<std::vector<int64_t> *> kp, rp;
  for (size_t i = 0; i < ks.size(); ++i) {
    kp.push_back(&ks[i]);
    rp.push_back(&rs[i]);
  }
  std::vector<int64_t> mk = coalesce(keptShape, kp);
  std::vector<int64_t> mr = coalesce(reducedShape, rp);
  if (mk.size() > 1 || mr.size() > 1) {
    // Not (M, K) in place: compute the operand into memory ordered
    // (kept..., reduced...), which is.
    std::vector<int64_t> order;
    for (int d : kept)
      order.push_back(shape[d]);
    for (int d : reduced)
      order.push_back(shape[d]);
    ArrayView staged = contiguous(order, operand.itemsize, node.device,
                                  runtime::UsmKind::Device);
    // The staged memory seen in the operand's own axis order.
    ArrayView seen = staged;
    seen.shape = shape;
    std::vector<int64_t> s(shape.size());
    for (size_t i = 0; i < kept.size(); ++i)
      s[kept[i]] = staged.strides[i];
    for (size_t i = 0; i < reduced.size(); ++i)
      s[reduced[i]] = staged.strides[kept.size() + i];
    seen.strides = s;
    computeMap(operand, seen, operand.element, operand.dtype,
               operand.itemsize);
    ArrayNode staging;
    staging.kind = ArrayNode::Kind::Memory;
    staging.element = operand.element;
    staging.dtype = operand.dtype;
    staging.itemsize = operand.itemsize;
    staging.shape = {rows, k};
    staging.device = node.device;
    staging.view = staged;
    staging.view.shape = {rows, k};
    staging.view.strides = {k * operand.itemsize, operand.itemsize};
    Gathered h;
    Gatherer again(h, staging.shape, nullptr);
    h.expression.result = again.value(staging);
    g = std::move(h);
  } else {
    size_t a = 0;
    for (Gathered::Parameter &p : g.parameters) {
      if (!p.array && !p.index)
        continue;
      p.view.shape = {rows, k};
      p.view.strides = {mk.size() == 1 && rows > 1 ? ks[a][0] : 0,
                        mr.size() == 1 && k > 1 ? rs[a][0] : 0};
      ++a;
    }
  }
  g.expression.reduction = node.reduction;
  g.expression.accumulator = node.accumulator;
  g.expression.floatingAccumulator = accElement->kind == TypeKind::Float;

  int local = workGroupSize(device);
  bool gpu = device.info().deviceType == "gpu";
  int64_t units = std::max<int64_t>(device.info().computeUnits, 1);
  int64_t wanted = gpu ? units * 8 : units * 2;
  int64_t groups = std::max<int64_t>(1, wanted / rows);
  groups = std::min<int64_t>(groups, (k + local - 1) / local);
  groups = std::max<int64_t>(groups, 1);
  if (k == 0)
    groups = 1;

  ArrayView finalView = out;
  finalView.shape = {rows, 1};
  finalView.strides = {node.itemsize, node.itemsize};
  if (groups == 1) {
    g.expression.output = node.dtype;
    reducePass(g, rows, k, 1, local, finalView, node.element, node.itemsize,
               node.device);
    return;
  }
  ArrayView partial = contiguous({rows, groups}, accItemsize, node.device,
                                 runtime::UsmKind::Device);
  reducePass(g, rows, k, groups, local, partial, accElement, accItemsize,
             node.device);
  ArrayNode partials;
  partials.kind = ArrayNode::Kind::Memory;
  partials.element = accElement;
  partials.dtype = node.accumulator;
  partials.itemsize = accItemsize;
  partials.shape = {rows, groups};
  partials.device = node.device;
  partials.view = partial;
  Gathered h;
  Gatherer again(h, partials.shape, nullptr);
  h.expression.result = again.value(partials);
  h.expression.reduction = node.reduction;
  h.expression.accumulator = node.accumulator;
  h.expression.floatingAccumulator = g.expression.floatingAccumulator;
  h.expression.output = node.dtype;
  reducePass(h, rows, groups, 1, local, finalView, node.element,
             node.itemsize, node.device);
}

int64_t itemsizeOf(const Type *element) {
  if (element->kind == TypeKind::Bool)
    return 1;
  return int64_t(element->bits / 8) *
         (element->kind == TypeKind::Complex ? 2 : 1);
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

NodeRef applyNode(std::string function, std::vector<NodeRef> operands,
                  std::vector<std::string> loop, const Type *element,
                  std::string dtype, int64_t itemsize,
                  std::vector<int64_t> shape, std::string file, int line) {
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
  node->function = std::move(function);
  node->operands = std::move(operands);
  node->loop = std::move(loop);
  node->file = std::move(file);
  node->line = line;
  return node;
}

NodeRef reduceNode(NodeRef operand, ArrayExpression::Reduction reduction,
                   std::vector<int> axes, std::string accumulator,
                   const Type *element, std::string dtype, int64_t itemsize,
                   std::string file, int line) {
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
  node->file = std::move(file);
  node->line = line;
  return node;
}

namespace {
std::string recordedAt(const ArrayNode &node) {
  return node.file + ":" + std::to_string(node.line) +
         ": computing the DeviceArray operation recorded here: ";
}
} // namespace

void evaluate(ArrayNode &node) {
  if (!node.pending())
    return;
  ArrayView out;
  try {
    out = contiguous(node.shape, node.itemsize, node.device, node.usm);
    if (node.kind != ArrayNode::Kind::Reduce)
      computeMap(node, out, node.element, node.dtype, node.itemsize);
    else
      computeReduce(node, out);
  } catch (const UserError &e) {
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
  // What the node reads that the target overlaps (other than the same
  // elements in the same places) must be read before any store: the value
  // is computed into its own memory first, as NumPy does.
  std::set<const ArrayNode *> seen;
  auto [low, high] = span(target, 1);
  std::vector<ArrayNode *> stack = {&node};
  bool overlaps = false;
  while (!stack.empty() && !overlaps) {
    ArrayNode *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second)
      continue;
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
      seen.erase(n);
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
  computeMap(node, target, targetElement, targetDType, itemsize);
}

bool anyPending() { return !registry().empty(); }

size_t registeredNodes() { return registry().size(); }

ArrayKernelStatistics arrayKernelStatistics() {
  ArrayKernelStatistics total;
  for (const auto &[key, cache] : caches()) {
    ++total.expressions;
    total.compiles += cache->statistics().compiles;
    total.memoryHits += cache->statistics().memoryHits;
    total.diskHits += cache->statistics().diskHits;
  }
  return total;
}

/// A registry entry no flush needs: gone, computed, or held by no array.
static bool isStale(const std::weak_ptr<ArrayNode> &weak) {
  NodeRef n = weak.lock();
  return !n || !n->pending() || n->holders == 0;
}

namespace {
bool readsBuffer(const ArrayNode &root, const runtime::Buffer &buffer) {
  std::vector<const ArrayNode *> stack = {&root};
  std::set<const ArrayNode *> seen;
  while (!stack.empty()) {
    const ArrayNode *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second)
      continue;
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
