// Evaluating the array-expression graph: a pending node's expression
// gathered into an ArrayExpression, its views merged, compiled through
// compiler/ArrayKernel and launched (Map, or Reduce in one or two passes).
// Private to launch/; ArrayGraph.cpp decides what is evaluated and when.
#include "launch/ArrayKernels.h"

#include "frontend/Diagnostics.h"
#include "launch/HostCall.h"
#include "launch/Launcher.h"
#include "launch/MapForm.h"
#include "runtime/NativeCPU.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <unordered_map>

namespace spirjit::launch {

namespace {

using Expression = ArrayExpression;

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
  /// The value of each node gathered (few: a flat list beats a map).
  std::vector<std::pair<const ArrayNode *, int>> values;
  /// The nodes gathered, alive until the launch: another thread may
  /// compute one meanwhile (compiles give up the caller's lock) and let
  /// go of its operands.
  std::vector<NodeRef> alive;
};

class Gatherer {
public:
  Gatherer(Gathered &g, const std::vector<int64_t> &shape,
           const ArrayNode *root)
      : g_(g), shape_(shape), root_(root) {
    // Room for a typical expression at once: each evaluation gathers
    // afresh, and growing these vectors step by step was a good part of
    // an evaluation's allocations (a Jacobi sweep's host cost).
    g.expression.values.reserve(24);
    g.parameters.reserve(12);
    g.values.reserve(16);
    g.alive.reserve(16);
  }

  int value(ArrayNode &node) {
    for (const auto &[seen, v] : g_.values)
      if (seen == &node)
        return v;
    // A reduction below is computed on its own, into memory. Element-wise
    // values are computed here, at each index, even one a DeviceArray
    // holds: reading the inputs again costs less than storing it and
    // reading it back (and it is computed on its own only if it is read).
    if (&node != root_ && node.kind == ArrayNode::Kind::Reduce)
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
      operands.reserve(node.operands.size() + 1);
      if (node.callee)
        operands.push_back(function(node.callee));
      for (size_t i = 0; i < node.operands.size(); ++i)
        operands.push_back(
            cast(value(*node.operands[i]), node.operands[i]->dtype,
                 (*node.loop)[i]));
      v = add({Expression::Value::Kind::Apply, 0, *node.function, operands,
               ""});
      if (node.callee) // returns what its code computes: the loop's dtype
        v = add(
            {Expression::Value::Kind::Cast, 0, "", {v}, node.loop->back()});
      v = cast(v, node.loop->back(), node.dtype);
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
    g_.values.emplace_back(&node, v);
    return v;
  }

private:
  int add(Expression::Value value) {
    g_.expression.values.push_back(std::move(value));
    return int(g_.expression.values.size()) - 1;
  }
  /// The Function value of `callee`: one per function the kernel calls.
  int function(const std::shared_ptr<const ElementFunction> &callee) {
    std::vector<std::shared_ptr<const ElementFunction>> &known =
        g_.expression.functions;
    size_t f = 0;
    while (f < known.size() && known[f] != callee &&
           known[f]->fingerprint != callee->fingerprint)
      ++f;
    if (f == known.size())
      known.push_back(callee);
    return add({Expression::Value::Kind::Function, int(f), "", {}, ""});
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

/// Index values take their merged strides; the other parameters are
/// renumbered as the kernel sees them (index ones are not parameters).
void finishParameters(Gathered &g) {
  std::vector<int> slot(g.parameters.size(), -1);
  std::vector<Gathered::Parameter> kept;
  for (size_t p = 0; p < g.parameters.size(); ++p)
    if (!g.parameters[p].index) {
      slot[p] = int(kept.size());
      kept.push_back(std::move(g.parameters[p])); // (index ones stay)
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

/// A Map's arrays as flat spans (ArrayKernel.h): each array parameter
/// and `out` bound as the 1-D span of the elements its view reaches, read
/// at offset + sum(id[d] * stride[d]). Strides of 0 and 1 element are
/// compiled in; the others, and offsets, are uint64 parameters, one per
/// distinct value, so views with equal strides share their index. (A view
/// bound as an array multiplied each index by each of its own strides:
/// ten 64-bit multiplies a Jacobi sweep's element where a RawKernel has
/// one.)
void flatten(Gathered &g, ArrayView &out, int64_t outItemsize) {
  using Flat = Expression::Value::Flat;
  std::vector<std::pair<int64_t, int>> numbers; // value -> parameter
  auto parameterOf = [&](int64_t value) {
    for (const auto &[known, p] : numbers)
      if (known == value)
        return p;
    Gathered::Parameter p;
    p.element = types::fromDTypeName("uint64");
    p.scalar[0] = static_cast<uint64_t>(value); // negative: wraps, as meant
    g.parameters.push_back(p);
    numbers.emplace_back(value, int(g.parameters.size()) - 1);
    return numbers.back().second;
  };
  auto flatOf = [&](ArrayView &view, int64_t itemsize) {
    Flat flat;
    flat.strides.reserve(view.shape.size());
    for (size_t d = 0; d < view.shape.size(); ++d) {
      int64_t stride = view.shape[d] == 1 ? 0 : view.strides[d] / itemsize;
      flat.strides.push_back(stride == 0   ? Expression::kStride0
                             : stride == 1 ? Expression::kStride1
                                           : parameterOf(stride));
    }
    auto [low, high] = span(view, itemsize);
    if (int64_t offset = (view.offset - low) / itemsize)
      flat.offset = parameterOf(offset);
    view.offset = low;
    view.shape.assign(1, (high - low) / itemsize);
    view.strides.assign(1, itemsize);
    return flat;
  };
  size_t arrays = g.parameters.size();
  std::vector<Flat> flats(arrays);
  for (size_t p = 0; p < arrays; ++p)
    if (g.parameters[p].array) { // (flatOf may add parameters: no reference)
      ArrayView view = g.parameters[p].view;
      flats[p] = flatOf(view, g.parameters[p].itemsize);
      g.parameters[p].view = std::move(view);
    }
  for (Expression::Value &v : g.expression.values)
    if (v.kind == Expression::Value::Kind::Load)
      v.flat = flats[size_t(v.parameter)];
  g.expression.outFlat = flatOf(out, outItemsize);
  g.expression.flat = true;
  g.expression.parameterCount = int(g.parameters.size());
}

/// Launches the gathered kernel over `range` with `out` last. Views have
/// `shape`, the shape the arguments are bound at.
void launch(const Gathered &g, const LaunchRange &range, const ArrayView &out,
            const Type *outElement, int64_t outItemsize,
            const std::shared_ptr<runtime::Device> &device,
            const ArrayView *outIndex = nullptr,
            KernelCache *cache = nullptr) {
  size_t n = g.parameters.size() + (outIndex ? 2 : 1);
  // The last launch's vector, refilled (per thread: a compile gives up
  // the caller's lock, and another thread may launch meanwhile).
  thread_local std::vector<ArgumentValue> args;
  args.assign(n, ArgumentValue());
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
      args[p].writable = false; // only out is written: inputs may overlap
    } else {
      args[p].kind = ArgumentValue::Kind::Scalar;
      args[p].type = q.element;
      args[p].scalar[0] = q.scalar[0];
      args[p].scalar[1] = q.scalar[1];
    }
  }
  bindArray(args[g.parameters.size()], out, outElement, outItemsize);
  if (outIndex)
    bindArray(args.back(), *outIndex, types::int64(), 8);
  Event event;
  (cache ? *cache : arrayKernelCache(g.expression))
      .submit(event, range, args.data(), n, device, nullptr, 0, false);
  if (device == runtime::hostDevice())
    event.wait(); // done already: this only lets go of what it held
}

/// One pass of the Reduce kernel: rows of `g`'s (M, K) views into
/// `out` (M, groups).
void reducePass(Gathered &g, int64_t rows, int64_t k, int64_t groups,
                int local, const ArrayView &out, const Type *outElement,
                int64_t outItemsize,
                const std::shared_ptr<runtime::Device> &device,
                const ArrayView *outIndex = nullptr,
                const ArrayView *indices = nullptr) {
  finishParameters(g);
  if (indices) { // each element's index, of a pass over partials
    Gathered::Parameter p;
    p.array = true;
    p.view = *indices;
    p.element = types::int64();
    p.itemsize = 8;
    g.expression.indexParameter = int(g.parameters.size());
    g.parameters.push_back(std::move(p));
  }
  if (g.expression.chunked) { // each group's part of a row
    Gathered::Parameter chunk;
    chunk.element = types::fromDTypeName("uint64");
    int64_t all = groups * local;
    chunk.scalar[0] = static_cast<uint64_t>((k + all - 1) / all * local);
    g.parameters.push_back(chunk);
  }
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
  launch(g, range, out, outElement, outItemsize, device, outIndex);
}

/// The reduction `first` (of `node`) again, over its partials `values`
/// (M, G): the second pass.
Gathered overPartials(const ArrayNode &node, const Expression &first,
                      const ArrayView &values, const Type *accElement,
                      int64_t accItemsize) {
  ArrayNode partials;
  partials.kind = ArrayNode::Kind::Memory;
  partials.element = accElement;
  partials.dtype = node.accumulator;
  partials.itemsize = accItemsize;
  partials.shape = values.shape;
  partials.device = node.device;
  partials.view = values;
  Gathered h;
  Gatherer again(h, partials.shape, nullptr);
  h.expression.result = again.value(partials);
  h.expression.form = Expression::Form::Reduce;
  h.expression.reduction = first.reduction;
  h.expression.accumulator = first.accumulator;
  h.expression.floatingAccumulator = first.floatingAccumulator;
  h.expression.chunked = first.chunked;
  h.expression.singleItemGroups = first.singleItemGroups;
  return h;
}

/// On a CPU device whose memory the host addresses, the partials of an
/// arg reduction folded by the host once the first pass is done, in place
/// of a second launch: its value is read next anyway, and the launch cost
/// more than the fold (Intel's CPU runtime, argmax of 2^20 float32 on two
/// cores, medians of 400 interleaved: 53.0 -> 49.2 us, NumPy's 45.4).
/// False where it does not apply.
bool foldOnHost(const ArrayNode &node, const ArrayView &values,
                const ArrayView &indices, const ArrayView &out,
                const Type *accElement) {
  auto host = [](const ArrayView &v) {
    return v.buffer->hostAddressable() && v.buffer->svm();
  };
  if (node.device->info().deviceType != "cpu" || !host(values) ||
      !host(indices) || !host(out) || !foldsArgPartials(accElement))
    return false; // before the wait: a second launch folds them instead
  auto at = [](const ArrayView &v) {
    return static_cast<char *>(v.buffer->svm()) + v.offset;
  };
  node.device->finish();
  bool isMax = node.reduction == Expression::Reduction::ArgMax;
  return foldArgPartials(isMax, accElement, at(values), at(indices),
                         values.shape[0], values.shape[1], at(out),
                         out.strides[0]);
}

} // namespace

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
  b.strides.reserve(shape.size());
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

namespace {

/// This thread's MapForm, reached through a pointer: with the
/// thread_local object itself, every member access in the walk was a TLS
/// lookup (the compiler made its address a constant of its clone of
/// walk()).
MapForm &threadMapForm() {
  thread_local auto form = std::make_unique<MapForm>();
  return *form;
}

/// The last Map launched on this thread, ready to be rebound (MapForm).
/// It holds no memory between launches.
struct MapMemo {
  std::vector<int64_t> key;
  Gathered g; // finished and flattened; buffers dropped
  /// Per parameter, the bound offset minus the binding's (a flat view
  /// starts at its span's lowest byte); the parameters flatten() added
  /// come after the bindings' and keep their values.
  std::vector<int64_t> shift;
  ArrayView out;
  int64_t outShift = 0;
  LaunchRange range;
  KernelCache *cache = nullptr;
  bool valid = false;
};

} // namespace

/// out = the value of `node` (an Apply or Memory node of out's shape), one
/// Map kernel; `out` must not overlap what the node reads.
void computeMap(ArrayNode &node, ArrayView out, const Type *outElement,
                const std::string &outDType, int64_t outItemsize,
                const std::shared_ptr<runtime::Device> *on) {
  const std::shared_ptr<runtime::Device> &device = on ? *on : node.device;
  int64_t count = 1;
  for (int64_t e : out.shape)
    count *= e;
  if (count == 0)
    return;
  // Reached through pointers: with the thread_local objects themselves,
  // every member access in the walk was a TLS lookup (the compiler made
  // their address a constant of its clone of walk()).
  thread_local auto memos = std::make_unique<MapMemo>();
  MapForm &form = threadMapForm();
  MapMemo &memo = *memos;
  bool formed = form.of(node, out, outElement, outItemsize);
  if (formed && memo.valid && form.key.equals(memo.key)) {
    for (size_t p = 0; p < form.bindings.size(); ++p) {
      Gathered::Parameter &q = memo.g.parameters[p];
      if (q.array) {
        q.view.buffer = *form.bindings[p].buffer;
        q.view.offset = form.bindings[p].offset + memo.shift[p];
      } else {
        q.scalar[0] = form.bindings[p].scalar[0];
        q.scalar[1] = form.bindings[p].scalar[1];
      }
    }
    memo.out.buffer = out.buffer;
    memo.out.offset = out.offset + memo.outShift;
    struct Drop { // the memo keeps no memory alive, even if launch throws
      MapMemo &memo;
      ~Drop() {
        for (Gathered::Parameter &q : memo.g.parameters)
          q.view.buffer = nullptr;
        memo.out.buffer = nullptr;
      }
    } drop{memo};
    launch(memo.g, memo.range, memo.out, outElement, outItemsize, device,
           nullptr, memo.cache);
    return;
  }
  memo.valid = false;
  int64_t outOffset = out.offset;
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
  if (shape.size() <= 3) // (more dimensions unravel the out's extents)
    flatten(g, out, outItemsize);
  LaunchRange range;
  if (shape.size() <= 3) {
    range.dims = int(shape.size());
    for (size_t d = 0; d < shape.size(); ++d)
      range.global[d] = shape[d];
  } else {
    range.dims = 1;
    range.global[0] = count;
  }
  KernelCache &cache = arrayKernelCache(g.expression);
  launch(g, range, out, outElement, outItemsize, device, nullptr, &cache);
  // Kept for the next evaluation of this form (the walk saw what the
  // gatherer did: the same parameters, in order, before flatten's).
  if (!formed || form.bindings.size() > g.parameters.size())
    return;
  memo.key.assign(form.key.begin(), form.key.end());
  memo.g.expression = std::move(g.expression);
  memo.g.parameters = std::move(g.parameters);
  memo.shift.assign(memo.g.parameters.size(), 0);
  for (size_t p = 0; p < form.bindings.size(); ++p)
    if (memo.g.parameters[p].array)
      memo.shift[p] = memo.g.parameters[p].view.offset - form.bindings[p].offset;
  for (Gathered::Parameter &q : memo.g.parameters)
    q.view.buffer = nullptr;
  memo.out = out;
  memo.out.buffer = nullptr;
  memo.outShift = out.offset - outOffset;
  memo.range = range;
  memo.cache = &cache;
  memo.valid = true;
}

namespace {
std::atomic<int64_t> hostValues{0};
} // namespace

int64_t hostComputedValues() {
  return hostValues.load(std::memory_order_relaxed);
}

bool computeMapOnHost(ArrayNode &node, const ArrayView &out,
                      const Type *outElement, const std::string &outDType,
                      int64_t outItemsize) {
  bool reduce = node.kind == ArrayNode::Kind::Reduce;
  // A reduction of memory alone is one NumPy call, cheaper than a launch
  // here (x.sum() of 1000 float32, best of 6 processes: 5.6 us against
  // 8.1); with operations before it, each of them is a call more.
  if (reduce && node.operands[0]->kind == ArrayNode::Kind::Memory)
    return false;
  MapForm &form = threadMapForm();
  if (reduce) {
    // The form of the reduced operand (at its own shape, contiguous), and
    // the reduction's.
    ArrayNode &operand = *node.operands[0];
    ArrayView whole;
    whole.shape = operand.shape;
    whole.strides.assign(operand.shape.size(), 0);
    if (!form.of(operand, whole, operand.element, operand.itemsize))
      return false;
    form.key.push(int64_t(node.element));
    form.key.push(int64_t(node.reduction));
    form.key.push(int64_t(std::hash<std::string>()(node.accumulator)));
    for (int64_t a : node.axes)
      form.key.push(a);
  } else if (!form.of(node, out, outElement, outItemsize)) {
    return false;
  }
  // How often each form was offered, by a hash of its key (a collision
  // only compiles a form a little early). Per thread, and bounded.
  thread_local auto offered = std::make_unique<std::unordered_map<uint64_t, int>>();
  uint64_t hash = 14695981039346656037ull; // FNV-1a over the key's words
  for (const int64_t *w = form.key.begin(); w != form.key.end(); ++w)
    hash = (hash ^ uint64_t(*w)) * 1099511628211ull;
  if (offered->size() > 4096)
    offered->clear();
  int &times = (*offered)[hash];
  if (times < 0 || times++ < kHostCompileAfter)
    return false;
  try {
    static const std::shared_ptr<runtime::Device> host = runtime::hostDevice();
    if (reduce)
      computeReduce(node, out, &host);
    else
      computeMap(node, out, outElement, outDType, outItemsize, &host);
    hostValues.fetch_add(1, std::memory_order_relaxed);
    return true;
  } catch (const std::exception &) {
    // Never again for this form: NumPy or the device's kernel computes
    // it, and reports what is wrong with it if anything is.
    (*offered)[hash] = -1;
    return false;
  }
}

/// Computes a Reduce node into `out` (its result shape, C-contiguous).
void computeReduce(ArrayNode &node, const ArrayView &out,
                   const std::shared_ptr<runtime::Device> *on) {
  // Memory stays the node's device's; the kernels run on `on` when given
  // (the host: one group a row, on the calling thread).
  const std::shared_ptr<runtime::Device> &device = on ? *on : node.device;
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
  const Type *accElement = types::fromDTypeName(node.accumulator);
  int64_t accItemsize = itemsizeOf(accElement);

  Gathered g;
  Gatherer gatherer(g, shape, &node);
  g.expression.result = gatherer.value(operand);
  // Each view as (kept..., reduced...), each group of axes merged into
  // one; where a group does not merge, the operand is first computed into
  // memory in that order, where it does.
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
  bool argReduction =
      node.reduction == Expression::Reduction::ArgMax ||
      node.reduction == Expression::Reduction::ArgMin;
  // (Not for the host's small values, `on`: those stage, as below.)
  if (!on && mk.size() <= 1 && mr.size() > 1 && !argReduction) {
    // Reduced axes that do not merge (a broadcast operand's: (a[:, None] *
    // b[None, :]).sum()): the last of them first, fused with the
    // operand, into memory the size of the operand over that axis's
    // extent, then the rest from there. Staging the whole operand had
    // made the broadcast product itself (1.6 GB for 2e4 x 1e4 float64).
    int last = reduced.back();
    ArrayNode inner = node; // its result in the accumulator's type
    inner.element = accElement;
    inner.dtype = node.accumulator;
    inner.itemsize = accItemsize;
    inner.axes = {last};
    inner.shape.clear();
    for (int d = 0; d < int(shape.size()); ++d)
      if (d != last)
        inner.shape.push_back(shape[d]);
    ArrayView partial = contiguous(inner.shape, accItemsize, node.device,
                                   runtime::UsmKind::Device);
    computeReduce(inner, partial, on);
    auto sums = std::make_shared<ArrayNode>();
    sums->kind = ArrayNode::Kind::Memory;
    sums->element = accElement;
    sums->dtype = node.accumulator;
    sums->itemsize = accItemsize;
    sums->shape = inner.shape;
    sums->device = node.device;
    sums->view = partial;
    sums->file = node.file;
    sums->line = node.line;
    ArrayNode outer = node;
    outer.operands = {sums};
    outer.axes.assign(reduced.begin(), reduced.end() - 1); // all below last
    computeReduce(outer, out, on);
    return;
  }
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
               operand.itemsize, on);
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
  g.expression.form = Expression::Form::Reduce;
  g.expression.reduction = node.reduction;
  g.expression.accumulator = node.accumulator;
  g.expression.floatingAccumulator = accElement->kind == TypeKind::Float;

  ReduceShape launchShape = reduceShape(device->info(), rows, k);
  if (on)
    launchShape.groups = 1;
  g.expression.chunked = launchShape.chunked;
  int local = launchShape.local;
  g.expression.blockedArgFold = launchShape.blockedArgFold;
  g.expression.singleItemGroups = launchShape.singleItemGroups;
  int64_t groups = launchShape.groups;

  ArrayView finalView = out;
  finalView.shape = {rows, 1};
  finalView.strides = {node.itemsize, node.itemsize};
  if (g.expression.argReduction()) {
    // Values and indices of each group's extreme; the node's value is the
    // indices of the last pass.
    ArrayView values = contiguous({rows, groups}, accItemsize, node.device,
                                  runtime::UsmKind::Device);
    ArrayView indices = groups == 1 ? finalView
                                    : contiguous({rows, groups}, 8,
                                                 node.device,
                                                 runtime::UsmKind::Device);
    reducePass(g, rows, k, groups, local, values, accElement, accItemsize,
               device, &indices);
    if (groups == 1 ||
        foldOnHost(node, values, indices, finalView, accElement))
      return;
    Gathered h = overPartials(node, g.expression, values, accElement,
                              accItemsize);
    ArrayView last = contiguous({rows, 1}, accItemsize, node.device,
                                runtime::UsmKind::Device);
    reducePass(h, rows, groups, 1, local, last, accElement, accItemsize,
               device, &finalView, &indices);
    return;
  }
  if (groups == 1) {
    g.expression.output = node.dtype;
    reducePass(g, rows, k, 1, local, finalView, node.element, node.itemsize,
               device);
    return;
  }
  ArrayView partial = contiguous({rows, groups}, accItemsize, node.device,
                                 runtime::UsmKind::Device);
  reducePass(g, rows, k, groups, local, partial, accElement, accItemsize,
             device);
  Gathered h = overPartials(node, g.expression, partial, accElement,
                            accItemsize);
  h.expression.output = node.dtype;
  reducePass(h, rows, groups, 1, local, finalView, node.element,
             node.itemsize, device);
}

int64_t itemsizeOf(const Type *element) {
  if (element->kind == TypeKind::Bool)
    return 1;
  return int64_t(element->bits / 8) *
         (element->kind == TypeKind::Complex ? 2 : 1);
}

} // namespace spirjit::launch
