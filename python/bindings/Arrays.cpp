// DeviceArray operations into the array-expression graph
// (launch/ArrayGraph.h): the bindings only convert. python/spirjit/
// _array_ops.py has decided the device, NumPy's loop dtypes and the
// broadcast shape, and raised NumPy's errors, before these are called.
#include "python/bindings/Arrays.h"

#include "compiler/ArrayOps.h"

#include "python/bindings/Describe.h"
#include "python/bindings/Dispatcher.h"
#include "python/bindings/Errors.h"
#include "python/bindings/UserSite.h"

#include <frameobject.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

namespace py = pybind11;

namespace spirjit::python {

namespace {

launch::NodeRef operandNode(py::handle value,
                            const std::shared_ptr<runtime::Device> &device) {
  if (const DeviceArray *array = asDeviceArray(value.ptr()))
    return array->node();
  uint64_t bytes[2] = {0, 0};
  const Type *type = scalarArgument(value, bytes, "an operand", "arrays");
  if (!type || type->kind == TypeKind::WeakInt ||
      type->kind == TypeKind::WeakFloat)
    throw PythonError("TypingError",
                      "internal: an array operand that is neither a "
                      "DeviceArray nor a NumPy scalar");
  py::dtype dtype = value.attr("dtype").cast<py::dtype>();
  return launch::scalarNode(type, dtypeName(dtype), dtype.itemsize(), bytes,
                            device);
}

/// A new DeviceArray of `node`'s value, computed now under SPIRJIT_LAZY=0
/// and while the host holds views of the device's memory (DLPack, a
/// writable buffer): other code may write through them at any time, and
/// an operation must see the values of its own line, as NumPy's would.
py::object pendingArray(launch::NodeRef node, const py::dtype &dtype) {
  if (!launch::lazyEvaluation() ||
      (node->device && node->device->hasHostViews()))
    launch::evaluate(*node);
  return py::cast(DeviceArray(std::move(node), dtype));
}

/// Ufunc `function` over `nodes` (converted to `loopNames`, the result's
/// dtype last) recorded at the user's line.
launch::NodeRef recordApply(const std::string &function,
                            std::vector<launch::NodeRef> nodes,
                            std::vector<std::string> loopNames,
                            const py::dtype &dtype,
                            std::vector<int64_t> shape) {
  Site site = recordingSite();
  return launch::applyNode(launch::internName(function), std::move(nodes),
                           launch::internLoop(loopNames),
                           typeOfDType(dtype), dtypeName(dtype),
                           dtype.itemsize(), std::move(shape), site.file,
                           site.line);
}

launch::ArrayView viewOf(const DeviceArray &a) {
  launch::ArrayView view;
  view.buffer = a.buffer();
  view.offset = a.offset();
  view.shape = a.shape();
  view.strides = a.strides();
  return view;
}

/// A function of the user's that DeviceArray operations call on elements
/// (spirjit.vectorize's), as Python holds it.
struct ElementFunctionHandle {
  std::shared_ptr<const ElementFunction> function;
};

py::object apply(const std::string &function, const py::list &operands,
                 const py::tuple &loop, const py::dtype &dtype,
                 std::vector<int64_t> shape,
                 const std::shared_ptr<runtime::Device> &device, py::object out,
                 const ElementFunctionHandle *callee) {
  std::vector<launch::NodeRef> nodes;
  std::vector<std::string> loopNames;
  for (size_t i = 0; i < loop.size(); ++i)
    loopNames.push_back(dtypeName(loop[i].cast<py::dtype>()));
  for (size_t i = 0; i < operands.size(); ++i)
    nodes.push_back(operandNode(operands[i], device));
  launch::NodeRef node;
  if (callee) {
    Site site = recordingSite();
    node = launch::callNode(callee->function, std::move(nodes), loopNames,
                            typeOfDType(dtype), dtypeName(dtype),
                            dtype.itemsize(), std::move(shape), site.file,
                            site.line);
  } else {
    node = recordApply(function, std::move(nodes), std::move(loopNames), dtype,
                       std::move(shape));
  }
  if (!out.is_none()) {
    const DeviceArray *target = asDeviceArray(out.ptr());
    launch::evaluateInto(*node, viewOf(*target), target->type()->element,
                         dtypeName(target->dtype()));
    return out;
  }
  return pendingArray(std::move(node), dtype);
}

ArrayExpression::Reduction reductionOf(const std::string &op) {
  ArrayExpression::Reduction reduction;
  if (ArrayExpression::reductionNamed(op, reduction))
    return reduction;
  throw PythonError("InvalidArgumentError", "no reduction called " + op);
}

py::object reduce(const DeviceArray &x, const std::string &op,
                  std::vector<int> axes, const py::dtype &accumulator,
                  const py::dtype &dtype) {
  Site site = recordingSite();
  launch::NodeRef node = launch::reduceNode(
      x.node(), reductionOf(op), std::move(axes), dtypeName(accumulator),
      typeOfDType(dtype), dtypeName(dtype), dtype.itemsize(), site.file,
      site.line);
  return pendingArray(std::move(node), dtype);
}

void assign(const DeviceArray &target, const DeviceArray &value) {
  launch::ArrayView view = viewOf(target);
  launch::evaluateInto(*value.node(), view, target.type()->element,
                       dtypeName(target.dtype()));
}

// The operators' fast path: DeviceArrays and Python numbers, NumPy's loop
// dtypes cached per (ufunc, operand dtypes), the broadcast shape, one
// graph node. Anything else (NumPy operands, an error to raise) takes the
// Python path, which raises NumPy's own errors.

/// The dtype of a NumPy scalar of a number dtype (bool, integer, float,
/// complex) as NumPy's own instance of it, kept for ever (the loop cache's
/// keys); nullptr for anything else.
/// Whether `obj` is a NumPy scalar (an instance of numpy.generic).
bool isNumpyScalar(PyObject *obj) {
  static auto *generic = reinterpret_cast<PyTypeObject *>(
      py::object(py::module_::import("numpy").attr("generic")).release().ptr());
  return PyObject_TypeCheck(obj, generic);
}

PyObject *numpyScalarDType(PyObject *obj) {
  if (!isNumpyScalar(obj))
    return nullptr;
  PyObject *attribute = PyObject_GetAttrString(obj, "dtype");
  if (!attribute) {
    PyErr_Clear();
    return nullptr;
  }
  auto dtype = py::reinterpret_steal<py::dtype>(attribute);
  if (!std::strchr("biufc", dtype.kind()))
    return nullptr;
  static auto &known = *new std::map<int, py::dtype>();
  auto it = known.find(dtype.num());
  if (it == known.end())
    it = known.emplace(dtype.num(), py::dtype(dtype.num())).first;
  return it->second.ptr();
}

/// What NumPy's resolve_dtypes sees of an operand: a dtype (a NumPy
/// scalar's too, strong under NEP 50), or the type of a weak Python number;
/// nullptr for what the fast path leaves.
PyObject *dtypeKey(PyObject *obj, const DeviceArray *&array) {
  static PyObject *boolDType =
      py::dtype::of<bool>().release().ptr();
  array = asDeviceArray(obj);
  if (array)
    return array->dtype().ptr();
  if (PyObject *scalar = numpyScalarDType(obj))
    return scalar;
  if (PyBool_Check(obj))
    return boolDType;
  if (PyLong_CheckExact(obj))
    return reinterpret_cast<PyObject *>(&PyLong_Type);
  if (PyFloat_CheckExact(obj))
    return reinterpret_cast<PyObject *>(&PyFloat_Type);
  if (PyComplex_CheckExact(obj))
    return reinterpret_cast<PyObject *>(&PyComplex_Type);
  return nullptr;
}

/// Operands of the operators' fast path, at most (NumPy's ufuncs in
/// ArrayOps.def take one to three).
constexpr size_t kFastOperands = 3;

/// NumPy's loop of a ufunc over some operand keys: its dtypes (inputs,
/// then the result), with what recording needs of each found once.
struct Loop {
  std::vector<py::dtype> dtypes; // empty: NumPy has none
  std::vector<std::string> names;
  std::vector<const Type *> types;
  const std::vector<std::string> *interned = nullptr; // names
};

/// NumPy's loop for `ufunc` over `count` operand keys (the Python path
/// raises where it has none).
const Loop &loopFor(PyObject *ufunc, PyObject *const *keys, size_t count) {
  // Never destroyed: its dtypes would be released after the interpreter
  // has finalised.
  static auto &loops = *new std::map<std::vector<PyObject *>, Loop>();
  // The last few found, compared in place: a chain repeats its ufuncs and
  // dtypes, and building the map's key allocated at every operation.
  struct Recent {
    PyObject *ufunc = nullptr;
    std::array<PyObject *, kFastOperands> keys{};
    size_t count = 0;
    const Loop *loop = nullptr;
  };
  static std::array<Recent, 8> recent;
  static size_t next = 0;
  for (const Recent &r : recent)
    if (r.loop && r.ufunc == ufunc && r.count == count &&
        std::equal(keys, keys + count, r.keys.begin()))
      return *r.loop;
  auto remember = [&](const Loop &loop) -> const Loop & {
    Recent &r = recent[next++ % recent.size()];
    r.ufunc = ufunc;
    std::copy(keys, keys + count, r.keys.begin());
    r.count = count;
    r.loop = &loop;
    return loop;
  };
  std::vector<PyObject *> key(keys, keys + count);
  key.push_back(ufunc);
  auto it = loops.find(key);
  if (it != loops.end())
    return remember(it->second);
  Loop loop;
  py::tuple request(count + 1);
  for (size_t i = 0; i < count; ++i)
    request[i] = py::reinterpret_borrow<py::object>(keys[i]);
  request[count] = py::none();
  try {
    py::tuple resolved = py::handle(ufunc).attr("resolve_dtypes")(request);
    // No float16 on devices: NumPy's float16 loops (np.sqrt of a bool)
    // run in float32, as kernels compute them (_array_ops.apply_ufunc).
    static py::handle half = py::dtype("float16").release();
    static py::handle single = py::dtype("float32").release();
    for (py::handle d : resolved)
      loop.dtypes.push_back(py::reinterpret_borrow<py::dtype>(
          py::reinterpret_borrow<py::dtype>(d).equal(
              py::reinterpret_borrow<py::dtype>(half))
              ? single
              : d));
  } catch (py::error_already_set &) {
    loop.dtypes.clear();
  }
  for (const py::dtype &d : loop.dtypes) {
    loop.names.push_back(dtypeName(d));
    loop.types.push_back(typeOfDType(d));
  }
  loop.interned = launch::internLoop(loop.names);
  for (PyObject *k : key)
    Py_INCREF(k); // the keys must outlive the entry
  return remember(
      loops.emplace(std::move(key), std::move(loop)).first->second);
}

/// A Python number or NumPy scalar as a value of `dtype`: false where the
/// conversion is NumPy's to make (out of range: the Python path raises
/// NumPy's error). `key`, where given, is the operand's dtypeKey (a NumPy
/// scalar's dtype, found once per operand).
bool numberAs(PyObject *obj, const py::dtype &dtype, uint64_t bytes[2],
              PyObject *key = nullptr) {
  char kind = dtype.kind();
  size_t size = dtype.itemsize();
  auto put = [&](int slot, auto value) {
    std::memcpy(&bytes[slot], &value, sizeof value);
  };
  auto putFloat = [&](int slot, double v, size_t width) {
    if (width == 4) {
      if (std::isfinite(v) && std::fabs(v) > 3.4028234663852886e38)
        return false;
      put(slot, static_cast<float>(v));
    } else {
      put(slot, v);
    }
    return true;
  };
  if (isNumpyScalar(obj)) {
    // A NumPy scalar of the loop's dtype: its bytes (a complex one's
    // parts one in each word, as scalarArgument keeps them). Another
    // dtype is NumPy's cast to make.
    PyObject *scalar = key ? key : numpyScalarDType(obj);
    if (!scalar || !py::reinterpret_borrow<py::dtype>(scalar).equal(dtype))
      return false;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      return false;
    }
    bool fits = size_t(view.len) == size && size <= 16;
    if (fits && kind == 'c') {
      std::memcpy(&bytes[0], view.buf, size / 2);
      std::memcpy(&bytes[1], static_cast<char *>(view.buf) + size / 2,
                  size / 2);
    } else if (fits) {
      std::memcpy(&bytes[0], view.buf, size);
    }
    PyBuffer_Release(&view);
    return fits;
  }
  if (PyLong_Check(obj)) { // bools too
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    switch (kind) {
    case 'b':
      put(0, static_cast<uint8_t>(v != 0));
      return true;
    case 'i': {
      int bits = int(size) * 8;
      if (bits < 64 && (v < -(1LL << (bits - 1)) || v >= (1LL << (bits - 1))))
        return false;
      put(0, static_cast<int64_t>(v));
      return true;
    }
    case 'u': {
      int bits = int(size) * 8;
      if (v < 0 || (bits < 64 && v >= (1LL << bits)))
        return false;
      put(0, static_cast<uint64_t>(v));
      return true;
    }
    case 'f':
      return putFloat(0, double(v), size);
    case 'c':
      return putFloat(0, double(v), size / 2) && putFloat(1, 0.0, size / 2);
    }
    return false;
  }
  if (PyFloat_Check(obj)) {
    double v = PyFloat_AS_DOUBLE(obj);
    if (kind == 'f')
      return putFloat(0, v, size);
    if (kind == 'c')
      return putFloat(0, v, size / 2) && putFloat(1, 0.0, size / 2);
    return false;
  }
  if (PyComplex_Check(obj) && kind == 'c')
    return putFloat(0, PyComplex_RealAsDouble(obj), size / 2) &&
           putFloat(1, PyComplex_ImagAsDouble(obj), size / 2);
  return false;
}

/// NumPy's broadcast of `count` shapes into `out`; false where they do
/// not broadcast.
bool broadcastShapes(const std::vector<int64_t> *const *shapes, size_t count,
                     std::vector<int64_t> &out) {
  size_t rank = 0;
  for (size_t i = 0; i < count; ++i)
    rank = std::max(rank, shapes[i]->size());
  out.assign(rank, 1);
  for (size_t i = 0; i < count; ++i) {
    const std::vector<int64_t> &s = *shapes[i];
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t e = s[d];
      int64_t &o = out[rank - s.size() + d];
      if (e == o || e == 1)
        continue;
      if (o != 1)
        return false;
      o = e;
    }
  }
  return true;
}

/// Whether the low `size` bytes of `word` hold a negative integer.
bool negativeInteger(uint64_t word, py::ssize_t size) {
  switch (size) {
  case 1: return static_cast<int8_t>(word) < 0;
  case 2: return static_cast<int16_t>(word) < 0;
  case 4: return static_cast<int32_t>(word) < 0;
  default: return static_cast<int64_t>(word) < 0;
  }
}

/// `function` over the `count` operands at `inputs` recorded, or an empty
/// object for the Python path.
py::object fastApply(const std::string *function, PyObject *ufunc,
                     PyObject *const *inputs, size_t count) {
  // (Nothing here allocates but the node, its vectors and the array:
  // recording was mostly allocation.)
  if (count == 0 || count > kFastOperands)
    return py::object();
  std::array<PyObject *, kFastOperands> keys;
  std::array<const DeviceArray *, kFastOperands> arrays;
  std::array<const std::vector<int64_t> *, kFastOperands> shapes;
  size_t shapeCount = 0;
  const DeviceArray *first = nullptr;
  for (size_t i = 0; i < count; ++i) {
    const DeviceArray *array = nullptr;
    keys[i] = dtypeKey(inputs[i], array);
    if (!keys[i])
      return py::object();
    if (array && !first)
      first = array;
    if (array && first->device() != array->device())
      return py::object(); // the Python path names both devices
    arrays[i] = array;
    if (array)
      shapes[shapeCount++] = &array->shape();
  }
  if (!first)
    return py::object();
  const Loop &loop = loopFor(ufunc, keys.data(), count);
  if (loop.dtypes.empty())
    return py::object();
  std::vector<int64_t> shape;
  if (!broadcastShapes(shapes.data(), shapeCount, shape))
    return py::object();
  std::vector<launch::NodeRef> nodes;
  nodes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (arrays[i]) {
      nodes.push_back(arrays[i]->node());
      continue;
    }
    uint64_t bytes[2] = {0, 0};
    if (!numberAs(inputs[i], loop.dtypes[i], bytes, keys[i]))
      return py::object();
    // NumPy's error for a negative integer exponent: the Python path.
    if (i == 1 && *function == "power" && loop.dtypes[i].kind() == 'i' &&
        negativeInteger(bytes[0], loop.dtypes[i].itemsize()))
      return py::object();
    nodes.push_back(launch::scalarNode(loop.types[i], loop.names[i],
                                       loop.dtypes[i].itemsize(), bytes,
                                       first->device()));
  }
  const py::dtype &dtype = loop.dtypes.back();
  Site site = recordingSite();
  return pendingArray(
      launch::applyNode(function, std::move(nodes), loop.interned,
                        loop.types.back(), loop.names.back(),
                        dtype.itemsize(), std::move(shape), site.file,
                        site.line),
      dtype);
}

/// What a DeviceArray operator method records.
struct Operator {
  const std::string *function; // interned
  py::object ufunc, slow;
  size_t arity;
  bool reflected;
};

/// A DeviceArray operator method: the fast path, else `slow` (Python).
/// A plain CPython function of the operator (its capsule): pybind11's
/// dispatch and argument tuple were a tenth of recording `a + b`.
PyObject *callOperator(PyObject *capsule, PyObject *const *args,
                       Py_ssize_t count) {
  auto *op = static_cast<const Operator *>(
      PyCapsule_GetPointer(capsule, nullptr));
  try {
    if (size_t(count) == op->arity) {
      std::array<PyObject *, 2> inputs = {args[0],
                                          count > 1 ? args[1] : nullptr};
      if (op->reflected)
        std::swap(inputs[0], inputs[1]);
      if (py::object r =
              fastApply(op->function, op->ufunc.ptr(), inputs.data(),
                        size_t(count)))
        return r.release().ptr();
    }
    return PyObject_Vectorcall(op->slow.ptr(), args, size_t(count), nullptr);
  } catch (...) {
    setPythonError(std::current_exception());
    return nullptr;
  }
}

py::object operatorMethod(const std::string &function, py::object ufunc,
                          py::object slow, int arity, bool reflected) {
  if (arity < 1 || arity > 2 || (reflected && arity != 2))
    throw PythonError("InvalidArgumentError",
                      "internal: an operator of arity " +
                          std::to_string(arity));
  static PyMethodDef definition = {
      "operator", reinterpret_cast<PyCFunction>(
                      reinterpret_cast<void (*)()>(callOperator)),
      METH_FASTCALL, nullptr};
  auto *op = new Operator{launch::internName(function), std::move(ufunc),
                          std::move(slow),
                          size_t(arity), reflected};
  py::capsule capsule(op, [](void *p) { delete static_cast<Operator *>(p); });
  py::object method = py::reinterpret_steal<py::object>(
      PyCFunction_NewEx(&definition, capsule.ptr(), nullptr));
  if (!method)
    throw py::error_already_set();
  // Bound to the instance like a function defined in the class.
  return py::reinterpret_steal<py::object>(
      PyInstanceMethod_New(method.ptr()));
}

/// The table's row of a NumPy ufunc object (row nullptr: not elementwise
/// in ArrayOps.def) and its NumPy name interned, once per ufunc.
struct UfuncRow {
  const ArrayOp *row = nullptr;
  const std::string *name = nullptr;
};
const UfuncRow &rowOf(PyObject *ufunc) {
  static auto &rows = *new std::map<PyObject *, UfuncRow>();
  auto it = rows.find(ufunc);
  if (it != rows.end())
    return it->second;
  UfuncRow found;
  if (PyObject *name = PyObject_GetAttrString(ufunc, "__name__")) {
    if (const char *text = PyUnicode_AsUTF8(name))
      found.row = findUfunc(std::string("numpy.") + text);
    Py_DECREF(name);
  }
  PyErr_Clear();
  if (found.row)
    found.name = launch::internName(found.row->numpy);
  Py_INCREF(ufunc); // the key must outlive the entry
  return rows.emplace(ufunc, found).first->second;
}

/// DeviceArray.__array_ufunc__: `np.sqrt(x)` and the like, called plainly
/// on DeviceArrays and Python numbers, recorded here (NumPy's dispatch
/// through the Python method took 8 us of a 9 us np.sqrt); else `slow`.
py::object ufuncMethod(py::object slow) {
  py::cpp_function method([slow](py::args args,
                                 py::kwargs kwargs) -> py::object {
    // (self, ufunc, method, *inputs)
    if (kwargs.empty() && args.size() >= 4) {
      const UfuncRow &ufunc = rowOf(args[1].ptr());
      const ArrayOp *row = ufunc.row;
      PyObject *how = args[2].ptr();
      if (row && size_t(row->arity) == args.size() - 3 &&
          PyUnicode_Check(how) &&
          PyUnicode_CompareWithASCIIString(how, "__call__") == 0) {
        std::array<PyObject *, kFastOperands> inputs{};
        size_t count = args.size() - 3;
        for (size_t i = 0; i < count && i < kFastOperands; ++i)
          inputs[i] = args[i + 3].ptr();
        if (py::object r =
                fastApply(ufunc.name, args[1].ptr(), inputs.data(), count))
          return r;
      }
    }
    return slow(*args, **kwargs);
  });
  return py::reinterpret_steal<py::object>(
      PyInstanceMethod_New(method.ptr()));
}

/// A reduction method (x.sum(), x.mean(), ..., x.argmax() of a 1-D
/// array): with no arguments, on an array with elements (argmax/argmin
/// of real ones), recorded here over every axis; else `slow`.
py::object reductionMethod(const std::string &op, py::object slow,
                           py::object dtypes) {
  // help() and the API reference show `slow`'s parameters and docstring,
  // not pybind11's (*args, **kwargs).
  py::options options;
  options.disable_function_signatures();
  std::string parameters =
      py::str(py::module_::import("inspect").attr("signature")(slow));
  if (parameters.rfind("(self, ", 0) == 0)
    parameters = "(" + parameters.substr(std::strlen("(self, "));
  std::string doc = op + parameters + "\n\n" +
                    py::str(slow.attr("__doc__")).cast<std::string>();
  auto record = [op, slow, dtypes](py::args args,
                                   py::kwargs kwargs) -> py::object {
    const DeviceArray *x =
        args.size() == 1 && kwargs.empty() ? asDeviceArray(args[0].ptr())
                                           : nullptr;
    // argmax/argmin: of a 1-D array here (the index is the element's).
    // Complex argmax/argmin are the slow path's to compose.
    bool arg = op == "argmax" || op == "argmin";
    if (!x || (arg && x->dtype().kind() == 'c') || x->size() == 0 ||
        (arg && x->shape().size() != 1))
      return slow(*args, **kwargs);
    // NumPy's dtypes of this reduction, once per input dtype: the
    // result's, the accumulator's, and the kernels' (at least 32 bits).
    static auto &known = *new std::map<std::pair<std::string, PyObject *>,
                                       std::vector<py::dtype>>();
    auto key = std::make_pair(op, x->dtype().ptr());
    auto it = known.find(key);
    if (it == known.end()) {
      std::vector<py::dtype> found;
      for (py::handle d : py::tuple(dtypes(arg ? op.substr(3) : op,
                                           x->dtype())))
        found.push_back(py::reinterpret_borrow<py::dtype>(d));
      x->dtype().inc_ref(); // the key must outlive the entry
      it = known.emplace(key, std::move(found)).first;
    }
    const py::dtype &result = it->second[0], &acc = it->second[1],
                    &kernelAcc = it->second[2];
    Site site = recordingSite();
    const char *file = site.file;
    int line = site.line;
    std::vector<int> axes;
    for (int d = 0; d < int(x->shape().size()); ++d)
      axes.push_back(d);
    if (arg) {
      static const py::dtype &index = *new py::dtype("int64"); // kept
      return pendingArray(
          launch::reduceNode(x->node(), reductionOf(op), std::move(axes),
                             dtypeName(kernelAcc), typeOfDType(index),
                             "int64", 8, file, line),
          index);
    }
    launch::NodeRef node = launch::reduceNode(
        x->node(), reductionOf(op == "mean" ? "sum" : op), std::move(axes),
        dtypeName(kernelAcc), typeOfDType(acc), dtypeName(acc),
        acc.itemsize(), file, line);
    if (op == "mean") {
      uint64_t bytes[2] = {0, 0};
      py::int_ count(x->size());
      if (!numberAs(count.ptr(), acc, bytes))
        return slow(*args, **kwargs);
      launch::NodeRef n = launch::scalarNode(
          typeOfDType(acc), dtypeName(acc), acc.itemsize(), bytes,
          x->device());
      node = launch::applyNode(
          launch::internName("divide"), {node, n},
          launch::internLoop({dtypeName(acc), dtypeName(acc), dtypeName(acc)}),
          typeOfDType(acc), dtypeName(acc), acc.itemsize(), {}, file, line);
    }
    if (!result.equal(acc))
      node = launch::applyNode(launch::internName("copy"), {node},
                               launch::internLoop({dtypeName(result),
                                                   dtypeName(result)}),
                               typeOfDType(result), dtypeName(result),
                               result.itemsize(), {}, file, line);
    return pendingArray(std::move(node), result);
  };
  py::cpp_function method(std::move(record), py::name(op.c_str()),
                          py::doc(doc.c_str()));
  return py::reinterpret_steal<py::object>(
      PyInstanceMethod_New(method.ptr()));
}

/// The view basic slicing selects when `key` is integers and slices only
/// (a tuple of them, or one), in bounds, not naming one element; false
/// for anything else (the Python path: ..., None, errors, one element).
bool basicView(const DeviceArray &a, PyObject *key,
               std::vector<int64_t> &shape, std::vector<int64_t> &strides,
               int64_t &offset) {
  PyObject *const *items = &key;
  Py_ssize_t count = 1;
  if (PyTuple_CheckExact(key)) {
    items = &PyTuple_GET_ITEM(key, 0);
    count = PyTuple_GET_SIZE(key);
  }
  size_t ndim = a.shape().size();
  if (size_t(count) > ndim)
    return false;
  offset = a.offset();
  bool anySlice = false;
  for (size_t d = 0; d < ndim; ++d) {
    int64_t n = a.shape()[d], stride = a.strides()[d];
    PyObject *k = d < size_t(count) ? items[d] : nullptr;
    if (!k || PySlice_Check(k)) {
      Py_ssize_t start = 0, stop = n, step = 1, length = n;
      if (k) {
        if (PySlice_Unpack(k, &start, &stop, &step) < 0) {
          PyErr_Clear();
          return false;
        }
        length = PySlice_AdjustIndices(n, &start, &stop, step);
      }
      shape.push_back(length);
      strides.push_back(stride * step);
      offset += start * stride;
      anySlice = true;
      continue;
    }
    if (!PyLong_CheckExact(k))
      return false;
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(k, &overflow);
    if (overflow || i < -n || i >= n)
      return false; // the Python path raises NumPy's IndexError
    offset += (i < 0 ? i + n : i) * stride;
  }
  return anySlice || size_t(count) < ndim;
}

py::object itemMethod(py::object slow, bool store) {
  py::cpp_function method([slow, store](py::args args) -> py::object {
    const DeviceArray *a = asDeviceArray(args[0].ptr());
    std::vector<int64_t> shape, strides;
    int64_t offset = 0;
    if (a && args.size() == size_t(store ? 3 : 2) &&
        basicView(*a, args[1].ptr(), shape, strides, offset)) {
      if (!store)
        return py::cast(DeviceArray(a->buffer(), a->dtype(), std::move(shape),
                                    std::move(strides), offset));
      // A DeviceArray of the same device into the view, broadcast and
      // cast as NumPy's setitem (not complex into real: NumPy warns).
      const DeviceArray *value = asDeviceArray(args[2].ptr());
      std::vector<int64_t> broadcast;
      if (value && value->device() == a->device() &&
          !(value->dtype().kind() == 'c' && a->dtype().kind() != 'c') &&
          broadcastShapes(std::array<const std::vector<int64_t> *, 2>{
                              &value->shape(), &shape}
                              .data(),
                          2, broadcast) &&
          broadcast == shape) {
        DeviceArray view(a->buffer(), a->dtype(), std::move(shape),
                         std::move(strides), offset);
        launch::evaluateInto(*value->node(), viewOf(view),
                             view.type()->element, dtypeName(view.dtype()));
        return py::none();
      }
    }
    return slow(*args);
  });
  return py::reinterpret_steal<py::object>(
      PyInstanceMethod_New(method.ptr()));
}

} // namespace

void addArrayFunctions(py::module_ &m) {
  m.def("_item_method", &itemMethod, py::arg("slow"), py::arg("store"),
        "DeviceArray.__getitem__ (store=False) or __setitem__: basic "
        "slicing with integers and slices in C++, else `slow`");
  m.def("_reduction_method", &reductionMethod, py::arg("op"),
        py::arg("slow"), py::arg("dtypes"),
        "a DeviceArray reduction method recording in C++ when called "
        "without arguments, else `slow`; dtypes(op, dtype) gives NumPy's "
        "(result, accumulator, kernel accumulator) dtypes");
  m.def("_operator_method", &operatorMethod, py::arg("function"),
        py::arg("ufunc"), py::arg("slow"), py::arg("arity"),
        py::arg("reflected") = false,
        "a DeviceArray operator recording in C++, falling back to `slow`");
  m.def("_ufunc_method", &ufuncMethod, py::arg("slow"),
        "DeviceArray.__array_ufunc__ recording plain calls of the table's "
        "ufuncs in C++, falling back to `slow`");
  py::class_<ElementFunctionHandle>(
      m, "_ElementFunction",
      "a function of the user's that DeviceArray operations call on "
      "elements (_apply's callee)")
      .def(
          "check",
          [](const ElementFunctionHandle &h, const py::tuple &loop) {
            std::vector<std::string> names;
            for (py::handle d : loop)
              names.push_back(dtypeName(py::reinterpret_borrow<py::dtype>(d)));
            launch::checkCall(h.function, names);
          },
          py::arg("loop"),
          "types the function called on elements of the dtypes `loop` (the "
          "inputs', then the result's): its errors raise now");
  m.def(
      "_element_function",
      [](const py::dict &description, const std::string &name) {
        return ElementFunctionHandle{
            ElementFunction::make(toFunctionDescription(description), name)};
      },
      py::arg("description"), py::arg("name"),
      "the function a description (_describe.describe_function) describes, "
      "for _apply to call on elements, under the device-function key `name`");
  m.def("_apply", &apply, py::arg("function"), py::arg("operands"),
        py::arg("loop"), py::arg("dtype"), py::arg("shape"), py::arg("device"),
        py::arg("out") = py::none(), py::arg("callee") = nullptr,
        "records ufunc `function` over `operands` (DeviceArrays, NumPy "
        "scalars of their loop dtype) as a pending DeviceArray, or computes "
        "it into `out`; with `callee` (an _ElementFunction), `function` is "
        "\"call\" and the callee is called on the elements");
  m.def("_reduce", &reduce, py::arg("x"), py::arg("op"), py::arg("axes"),
        py::arg("accumulator"), py::arg("dtype"),
        "records a reduction (sum, prod, min, max) of x over `axes`");
  m.def("_assign", &assign, py::arg("target"), py::arg("value"),
        "computes `value` into the view `target` (converting its dtype)");
  m.def("_array_kernel_stats", [] {
    int expressions = 0;
    py::dict out = statsDict(launch::arrayKernelStatistics(expressions));
    out["expressions"] = expressions;
    out["host_values"] = launch::hostComputedValues();
    return out;
  }, "the fused array kernels' statistics, summed (as a kernel's .stats)");
  m.def(
      "_index",
      [](std::vector<int64_t> shape, int axis,
         std::shared_ptr<runtime::Device> device) {
        return DeviceArray(launch::indexNode(std::move(shape), axis,
                                             std::move(device)),
                           py::dtype::of<int64_t>());
      },
      py::arg("shape"), py::arg("axis"), py::arg("device"),
      "an int64 DeviceArray of `shape` holding the index along `axis`, "
      "computed where it is used");
  m.def("_pending", [](const DeviceArray &a) { return a.pending(); });
  m.def("_pending_nodes", &launch::registeredNodes,
        "how many pending values the flush list holds");
  m.def(
      "_synchronize",
      [](std::shared_ptr<runtime::Device> device) {
        launch::flushPending();
        // Then waits for what is queued: on `device`, or on every device;
        // what finished launches kept alive goes back to the pool.
        std::vector<std::shared_ptr<runtime::Device>> devices;
        if (device)
          devices.push_back(device);
        else
          devices = runtime::allDevices();
        uint64_t upTo = launch::launchesSoFar();
        {
          py::gil_scoped_release unlocked;
          for (const auto &d : devices)
            d->finish();
        }
        for (const auto &d : devices)
          launch::releaseFinishedLaunches(*d, upTo);
      },
      py::arg("device") = nullptr,
      "computes every pending DeviceArray value and waits until `device` "
      "(every device by default) has finished the work queued on it");
}

} // namespace spirjit::python
