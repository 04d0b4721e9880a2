// DeviceArray operations into the array-expression graph
// (launch/ArrayGraph.h): the bindings only convert. python/spirjit/
// _array_ops.py has decided the device, NumPy's loop dtypes and the
// broadcast shape, and raised NumPy's errors, before these are called.
#include "python/bindings/Arrays.h"

#include "python/bindings/Describe.h"
#include "python/bindings/Dispatcher.h"
#include "python/bindings/Errors.h"

#include <frameobject.h>
#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;

namespace spirjit::python {

namespace {

/// NumPy's name of a dtype ("float32"), kept per dtype object: asking
/// NumPy costs more than the rest of recording an operation.
const std::string &dtypeName(const py::dtype &dtype) {
  static std::map<PyObject *, std::string> names;
  auto it = names.find(dtype.ptr());
  if (it != names.end())
    return it->second;
  // Builtin dtypes are immortal singletons; keep a reference anyway.
  dtype.inc_ref();
  return names.emplace(dtype.ptr(), py::str(dtype).cast<std::string>())
      .first->second;
}

/// The user's line that recorded an operation: the innermost frame
/// outside the spirjit package.
void recordingSite(std::string &file, int &line) {
  static std::string package = [] {
    py::object spirjit = py::module_::import("spirjit");
    py::object os = py::module_::import("os.path");
    return os.attr("dirname")(spirjit.attr("__file__")).cast<std::string>();
  }();
  PyFrameObject *frame = PyEval_GetFrame();
  if (frame)
    Py_INCREF(frame);
  while (frame) {
    PyCodeObject *code = PyFrame_GetCode(frame);
    const char *name = PyUnicode_AsUTF8(code->co_filename);
    bool ours = name && std::strncmp(name, package.c_str(),
                                     package.size()) == 0;
    if (!ours) {
      file = name ? name : "<unknown>";
      line = PyFrame_GetLineNumber(frame);
      Py_DECREF(code);
      Py_DECREF(frame);
      return;
    }
    Py_DECREF(code);
    PyFrameObject *back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  file = "<unknown>";
  line = 0;
}

launch::NodeRef operandNode(py::handle value, const py::dtype &loopDType,
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
  (void)loopDType;
  py::dtype dtype = value.attr("dtype").cast<py::dtype>();
  return launch::scalarNode(type, dtypeName(dtype), dtype.itemsize(), bytes,
                            device);
}

launch::ArrayView viewOf(const DeviceArray &a) {
  launch::ArrayView view;
  view.buffer = a.buffer();
  view.offset = a.offset();
  view.shape = a.shape();
  view.strides = a.strides();
  return view;
}

py::object apply(const std::string &function, const py::list &operands,
                 const py::tuple &loop, const py::dtype &dtype,
                 std::vector<int64_t> shape,
                 const std::shared_ptr<runtime::Device> &device,
                 py::object out) {
  std::vector<launch::NodeRef> nodes;
  std::vector<std::string> loopNames;
  for (size_t i = 0; i < loop.size(); ++i)
    loopNames.push_back(dtypeName(loop[i].cast<py::dtype>()));
  for (size_t i = 0; i < operands.size(); ++i)
    nodes.push_back(
        operandNode(operands[i], loop[i].cast<py::dtype>(), device));
  std::string file;
  int line = 0;
  recordingSite(file, line);
  launch::NodeRef node = launch::applyNode(
      function, std::move(nodes), std::move(loopNames), typeOfDType(dtype),
      dtypeName(dtype), dtype.itemsize(), std::move(shape), file, line);
  if (!out.is_none()) {
    const DeviceArray *target = asDeviceArray(out.ptr());
    launch::evaluateInto(*node, viewOf(*target), target->type()->element,
                         dtypeName(target->dtype()));
    return out;
  }
  if (!launch::lazyEvaluation())
    launch::evaluate(*node);
  return py::cast(DeviceArray(std::move(node), dtype));
}

ArrayExpression::Reduction reductionOf(const std::string &op) {
  if (op == "sum")
    return ArrayExpression::Reduction::Sum;
  if (op == "prod")
    return ArrayExpression::Reduction::Prod;
  if (op == "min")
    return ArrayExpression::Reduction::Min;
  if (op == "max")
    return ArrayExpression::Reduction::Max;
  throw PythonError("InvalidArgumentError", "no reduction called " + op);
}

py::object reduce(const DeviceArray &x, const std::string &op,
                  std::vector<int> axes, const py::dtype &accumulator,
                  const py::dtype &dtype) {
  std::string file;
  int line = 0;
  recordingSite(file, line);
  launch::NodeRef node = launch::reduceNode(
      x.node(), reductionOf(op), std::move(axes), dtypeName(accumulator),
      typeOfDType(dtype), dtypeName(dtype), dtype.itemsize(), file, line);
  if (!launch::lazyEvaluation())
    launch::evaluate(*node);
  return py::cast(DeviceArray(std::move(node), dtype));
}

void assign(const DeviceArray &target, const DeviceArray &value) {
  launch::ArrayView view = viewOf(target);
  launch::evaluateInto(*value.node(), view, target.type()->element,
                       dtypeName(target.dtype()));
}

} // namespace

void addArrayFunctions(py::module_ &m) {
  m.def("_apply", &apply, py::arg("function"), py::arg("operands"),
        py::arg("loop"), py::arg("dtype"), py::arg("shape"),
        py::arg("device"), py::arg("out") = py::none(),
        "records ufunc `function` over `operands` (DeviceArrays, NumPy "
        "scalars of their loop dtype) as a pending DeviceArray, or computes "
        "it into `out`");
  m.def("_reduce", &reduce, py::arg("x"), py::arg("op"), py::arg("axes"),
        py::arg("accumulator"), py::arg("dtype"),
        "records a reduction (sum, prod, min, max) of x over `axes`");
  m.def("_assign", &assign, py::arg("target"), py::arg("value"),
        "computes `value` into the view `target` (converting its dtype)");
  m.def("_lazy", &launch::lazyEvaluation,
        "whether DeviceArray operations record (SPIRJIT_LAZY)");
  m.def("_array_kernel_stats", [] {
    launch::ArrayKernelStatistics s = launch::arrayKernelStatistics();
    py::dict out;
    out["expressions"] = s.expressions;
    out["compiles"] = s.compiles;
    out["memory_hits"] = s.memoryHits;
    out["disk_hits"] = s.diskHits;
    return out;
  }, "the fused array kernels' statistics, summed");
  m.def("_pending", [](const DeviceArray &a) { return a.pending(); });
  m.def(
      "_synchronize",
      [](std::shared_ptr<runtime::Device> device) {
        launch::flushPending();
        // Then waits for what is queued: on `device`, or on every device.
        py::gil_scoped_release unlocked;
        if (device) {
          device->finish();
          return;
        }
        for (const auto &d : runtime::allDevices())
          d->finish();
      },
      py::arg("device") = nullptr,
      "computes every pending DeviceArray value and waits until `device` "
      "(every device by default) has finished the work queued on it");
}

} // namespace spirjit::python
