// The array graph's host evaluator (launch/ArrayGraph.h, HostEvaluator):
// a node computed by NumPy's own functions over the device's memory in
// place, for a CPU runtime's small values, where a kernel launch costs
// more than the work. Each node means here what it
// means in a kernel: an ArrayOps.def ufunc over its operands converted to
// the loop's dtypes, the result converted to the node's dtype; a
// reduction folded in its accumulator's dtype. NumPy is the reference the
// kernels are tested against, so both give NumPy's answers.
#include "python/bindings/Arrays.h"

#include "launch/ArrayGraph.h"
#include "runtime/NativeCPU.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace py = pybind11;

namespace spirjit::python {

namespace {

using launch::ArrayNode;

const py::module_ &numpy() {
  static py::module_ *np = new py::module_(py::module_::import("numpy"));
  return *np;
}

/// NumPy's function of a name, looked up once (a lookup per call was a
/// tenth of a small array's evaluation).
const py::object &numpyFunction(const std::string &name) {
  static auto *known = new std::map<std::string, py::object>();
  auto it = known->find(name);
  if (it == known->end())
    it = known->emplace(name, numpy().attr(name.c_str())).first;
  return it->second;
}

/// The host's address of a view's first element.
char *hostAddress(const launch::ArrayView &view) {
  const runtime::Buffer &buffer = *view.buffer;
  void *base = buffer.hostPointer() ? buffer.hostPointer() : buffer.svm();
  return static_cast<char *>(base) + view.offset;
}

/// NumPy's dtype of a name, made once.
const py::dtype &dtypeOf(const std::string &name) {
  static auto *known = new std::map<std::string, py::dtype>();
  auto it = known->find(name);
  if (it == known->end())
    it = known->emplace(name, py::dtype(name)).first;
  return it->second;
}

/// A NumPy array over `view`'s memory (no copy; the caller keeps the
/// memory alive for as long as the array is used).
py::array arrayOver(const launch::ArrayView &view, const std::string &dtype) {
  return py::array(dtypeOf(dtype), view.shape, view.strides,
                   hostAddress(view), py::none());
}

/// `value` as `dtype` (itself when it already is).
py::object as(const py::object &value, const std::string &dtype) {
  const py::dtype &want = dtypeOf(dtype);
  // (An array's dtype read in place; a NumPy scalar's through Python.)
  py::object have = py::isinstance<py::array>(value)
                        ? py::reinterpret_borrow<py::array>(value).dtype()
                        : value.attr("dtype");
  if (have.is(want) || have.equal(want))
    return value;
  return value.attr("astype")(want);
}

class Evaluator {
public:
  py::object value(const ArrayNode &node) {
    auto known = values_.find(&node);
    if (known != values_.end())
      return known->second;
    py::object v = compute(node);
    values_[&node] = v;
    return v;
  }

  /// Writes `node`'s value into `target`: a ufunc straight into it when
  /// its loop gives the node's dtype, else through a copy.
  void into(const ArrayNode &node, const py::array &target) {
    const py::module_ &np = numpy();
    if (node.kind == ArrayNode::Kind::Reduce && reducedInto(node, target))
      return;
    if (node.kind == ArrayNode::Kind::Apply && *node.function != "copy" &&
        *node.function != "where" && !floatFloorDivide(node) &&
        node.loop->back() == node.dtype) {
      callWithOut(numpyFunction(*node.function), operandsOf(node), target);
      return;
    }
    py::object result = value(node);
    if (py::isinstance<py::array>(result) &&
        py::reinterpret_borrow<py::array>(result).ndim() == target.ndim())
      np.attr("copyto")(target, result);
    else
      np.attr("copyto")(target, result.attr("reshape")(py::cast(node.shape)));
  }

private:
  static bool floatFloorDivide(const ArrayNode &node) {
    return *node.function == "floor_divide" &&
           dtypeOf(node.loop->back()).kind() == 'f';
  }

  py::list operandsOf(const ArrayNode &node) {
    py::list operands;
    for (size_t i = 0; i < node.operands.size(); ++i)
      operands.append(as(value(*node.operands[i]), (*node.loop)[i]));
    return operands;
  }

  py::object compute(const ArrayNode &node) {
    const py::module_ &np = numpy();
    switch (node.kind) {
    case ArrayNode::Kind::Memory:
      return arrayOver(node.view, node.dtype);
    case ArrayNode::Kind::Scalar: {
      // A 0-d array of the parameter's bytes (a copy). A complex
      // parameter keeps its parts one in each word (scalarArgument), so a
      // complex64's imaginary part moves next to its real part.
      char bytes[16];
      std::memcpy(bytes, node.scalar, sizeof bytes);
      if (node.element->kind == TypeKind::Complex && node.itemsize == 8)
        std::memcpy(bytes + 4, &node.scalar[1], 4);
      return py::array(dtypeOf(node.dtype), std::vector<py::ssize_t>{},
                       std::vector<py::ssize_t>{}, bytes);
    }
    case ArrayNode::Kind::Index: {
      int axis = node.axes[0];
      std::vector<py::ssize_t> along(node.shape.size(), 1);
      along[size_t(axis)] = node.shape[size_t(axis)];
      py::object index = np.attr("arange")(node.shape[size_t(axis)],
                                           py::arg("dtype") = "int64");
      return np.attr("broadcast_to")(index.attr("reshape")(along),
                                     py::tuple(py::cast(node.shape)));
    }
    case ArrayNode::Kind::Apply: {
      py::list operands = operandsOf(node);
      py::object result;
      if (*node.function == "copy")
        result = operands[0];
      else if (*node.function == "where")
        result = np.attr("where")(*operands);
      else if (floatFloorDivide(node)) {
        // ArrayOps.def's floor_divide: a / b where an operand is infinite
        // (the Array API standard's values; the kernels' lowering,
        // LowerArithmetic.cpp, gives the same).
        py::object a = operands[0], b = operands[1];
        py::object infinite = np.attr("logical_or")(np.attr("isinf")(a),
                                                    np.attr("isinf")(b));
        result = np.attr("where")(infinite, np.attr("true_divide")(a, b),
                                  np.attr("floor_divide")(a, b));
      }
      else
        result = numpyFunction(*node.function)(*operands);
      return as(result, node.dtype);
    }
    case ArrayNode::Kind::Reduce:
      return reduce(node);
    }
    return py::none();
  }

  /// `operand`'s value with its own shape.
  py::object operandValue(const ArrayNode &operand) {
    py::object x = value(operand);
    // (Only where needed: NumPy's argmax over a broadcast view, read-only,
    // took 3.7x as long as over the array itself.)
    auto sameShape = [&] {
      if (!py::isinstance<py::array>(x))
        return py::cast<std::vector<int64_t>>(x.attr("shape")) ==
               operand.shape;
      auto a = py::reinterpret_borrow<py::array>(x);
      if (size_t(a.ndim()) != operand.shape.size())
        return false;
      for (size_t d = 0; d < operand.shape.size(); ++d)
        if (a.shape(py::ssize_t(d)) != operand.shape[d])
          return false;
      return true;
    };
    if (!sameShape())
      x = numpy().attr("broadcast_to")(x, py::tuple(py::cast(operand.shape)));
    return x;
  }

  /// NumPy's reduce of a folding reduction's ufunc, looked up once.
  static const py::object &reduceMethod(ArrayExpression::Reduction r) {
    static const char *ufuncs[] = {"add", "multiply", "minimum", "maximum"};
    static auto *known = new std::map<int, py::object>();
    auto it = known->find(int(r));
    if (it == known->end())
      it = known->emplace(int(r), numpyFunction(ufuncs[int(r)]).attr("reduce"))
               .first;
    return it->second;
  }

  /// A folding reduction whose accumulator is its dtype, reduced straight
  /// into `target` (a small sum's result array, its conversion and the
  /// copy into the target were half its evaluation); false otherwise.
  bool reducedInto(const ArrayNode &node, const py::array &target) {
    using R = ArrayExpression::Reduction;
    if (node.reduction == R::ArgMax || node.reduction == R::ArgMin ||
        node.accumulator != node.dtype ||
        size_t(target.ndim()) + node.axes.size() !=
            node.operands[0]->shape.size())
      return false;
    py::object x = as(operandValue(*node.operands[0]), node.accumulator);
    py::list arguments;
    arguments.append(x);
    arguments.append(py::tuple(py::cast(node.axes)));
    callWithOut(reduceMethod(node.reduction), arguments, target);
    return true;
  }

  /// `function(*arguments, out=target)` through the vectorcall protocol
  /// (pybind11's keyword call built a dict each time; NumPy deprecates
  /// `out` as a positional argument of some ufuncs).
  static void callWithOut(const py::object &function,
                          const py::list &arguments, const py::object &target) {
    static PyObject *outName = Py_BuildValue("(s)", "out");
    std::vector<PyObject *> args;
    for (py::handle a : arguments)
      args.push_back(a.ptr());
    args.push_back(target.ptr());
    PyObject *result = PyObject_Vectorcall(function.ptr(), args.data(),
                                           arguments.size(), outName);
    if (!result)
      throw py::error_already_set();
    Py_DECREF(result);
  }

  py::object reduce(const ArrayNode &node) {
    using R = ArrayExpression::Reduction;
    const py::module_ &np = numpy();
    const ArrayNode &operand = *node.operands[0];
    py::object x = operandValue(operand);
    py::tuple axes(py::cast(node.axes));
    py::object result;
    if (node.reduction == R::ArgMax || node.reduction == R::ArgMin) {
      const char *name = node.reduction == R::ArgMax ? "argmax" : "argmin";
      if (node.axes.size() == operand.shape.size())
        result = np.attr(name)(x.attr("reshape")(-1));
      else
        result = np.attr(name)(x, py::arg("axis") = node.axes[0]);
    } else {
      result = reduceMethod(node.reduction)(as(x, node.accumulator), axes);
    }
    return as(np.attr("asarray")(result), node.dtype);
  }

  std::map<const ArrayNode *, py::object> values_;
};

/// NumPy's floating-point warnings off for the scope, as
/// np.errstate(all="ignore") does. Making, entering and leaving that
/// Python object was a third of a small array's evaluation; NumPy 2 keeps
/// the state in a context variable, which this sets to the state errstate
/// makes (made once) and resets. NumPy 1 goes through errstate.
class QuietFloatingPoint {
public:
  QuietFloatingPoint() {
    const Setting &s = setting();
    if (s.variable) {
      token_ = py::reinterpret_steal<py::object>(
          PyContextVar_Set(s.variable.ptr(), s.ignore.ptr()));
      if (!token_)
        throw py::error_already_set();
      return;
    }
    errstate_ = numpy().attr("errstate")(py::arg("all") = "ignore");
    errstate_.attr("__enter__")();
  }
  ~QuietFloatingPoint() {
    if (token_) {
      if (PyContextVar_Reset(setting().variable.ptr(), token_.ptr()) != 0)
        PyErr_Clear();
      return;
    }
    try {
      errstate_.attr("__exit__")(py::none(), py::none(), py::none());
    } catch (const py::error_already_set &) {
    }
  }
  QuietFloatingPoint(const QuietFloatingPoint &) = delete;
  QuietFloatingPoint &operator=(const QuietFloatingPoint &) = delete;

private:
  struct Setting {
    py::object variable, ignore; // none where NumPy has no such variable
  };
  static const Setting &setting() {
    static Setting *known = [] {
      auto *s = new Setting;
      try {
        py::module_ config = py::module_::import("numpy._core._ufunc_config");
        py::object variable = config.attr("_extobj_contextvar");
        s->ignore = config.attr("_make_extobj")(py::arg("all") = "ignore");
        if (PyContextVar_CheckExact(variable.ptr()))
          s->variable = variable;
      } catch (const py::error_already_set &) {
        s->variable = py::object();
      }
      return s;
    }();
    return *known;
  }
  py::object token_, errstate_;
};

/// Whether NumPy's function gives other values than ArrayOps.def's rule
/// somewhere in `node`'s graph: complex expm1 and tanh, whose special
/// values (infinite and NaN parts, signed zeros) the kernels give as the
/// Array API standard and C99 Annex G ask (LowerComplexMath.cpp).
bool numpyDiffers(const ArrayNode &node) {
  if (node.kind == ArrayNode::Kind::Apply &&
      (*node.function == "expm1" || *node.function == "tanh") &&
      dtypeOf(node.loop->back()).kind() == 'c')
    return true;
  for (const launch::NodeRef &o : node.operands)
    if (numpyDiffers(*o))
      return true;
  return false;
}

/// `node`'s value written into `target` by NumPy; false where NumPy
/// refuses it or would differ from the kernels (then it runs as a kernel,
/// whose errors name the operation).
bool computeInto(const ArrayNode &node, const py::array &target) {
  if (numpyDiffers(node))
    return false;
  try {
    // NumPy's warnings (a division by zero, the sqrt of -1) are not what
    // a DeviceArray's kernel gives: the values are, without a warning.
    QuietFloatingPoint quiet;
    Evaluator().into(node, target);
    return true;
  } catch (const py::error_already_set &) {
    PyErr_Clear();
    return false;
  }
}

bool evaluateOnHost(ArrayNode &node, const launch::ArrayView &out) {
  py::gil_scoped_acquire gil;
  return computeInto(node, arrayOver(out, node.dtype));
}

} // namespace

bool readOnHost(const launch::NodeRef &node, const py::array &out) {
  if (!launch::evaluatesOnHost(*node))
    return false;
  launch::waitForHostRead(*node);
  // Straight into `out` (new, C-contiguous): compiled for the host where
  // the value's form is warm, else NumPy's functions.
  static const std::shared_ptr<runtime::Device> host = runtime::hostDevice();
  launch::ArrayView view;
  view.buffer = host->wrapHostMemory(const_cast<void *>(out.data()),
                                     static_cast<size_t>(out.nbytes()));
  view.shape.assign(out.shape(), out.shape() + out.ndim());
  view.strides.assign(out.strides(), out.strides() + out.ndim());
  if (view.buffer && launch::computeOnHost(*node, view))
    return true;
  return computeInto(*node, out);
}

void addHostEvaluation(py::module_ &m) {
  const char *setting = std::getenv("SPIRJIT_HOST_NUMPY");
  if (!(setting && std::string(setting) == "0"))
    launch::setHostEvaluator(evaluateOnHost);
  m.def(
      "_host_evaluation",
      [](bool enabled) {
        bool was = launch::hostEvaluator() != nullptr;
        launch::setHostEvaluator(enabled ? evaluateOnHost : nullptr);
        return was;
      },
      "Whether CPU runtimes' small array values are computed by NumPy in "
      "place (on unless SPIRJIT_HOST_NUMPY=0); returns the previous "
      "setting. The test suite turns it off to test the kernels at every "
      "size.");
}

} // namespace spirjit::python
