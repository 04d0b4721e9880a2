// The Python entry points of a launch: spirjit.call_kernel and
// call_kernel_async as CPython METH_FASTCALL functions (no Python frame and
// no argument tuple between the call and Dispatcher::launch/enqueue), and
// spirjit.Event as a plain CPython type holding the C++ Event in place.
#include "python/bindings/Dispatcher.h"

#include "frontend/Diagnostics.h"
#include "python/bindings/Errors.h"
#include "python/bindings/UserSite.h"

#include <pybind11/stl.h>

#include <algorithm>

namespace py = pybind11;

namespace spirjit::python {
namespace {

/// The Dispatcher of a @spirjit.kernel object, or nullptr for anything
/// else. The last kernel launched is remembered (a strong reference), so
/// a loop of launches looks nothing up.
Dispatcher *dispatcherOf(PyObject *kernelObject) {
  static PyObject *lastKernel = nullptr;
  static Dispatcher *lastDispatcher = nullptr;
  if (kernelObject == lastKernel)
    return lastDispatcher;
  static PyObject *name = PyUnicode_InternFromString("_dispatcher");
  static PyTypeObject *type =
      reinterpret_cast<PyTypeObject *>(py::type::of<Dispatcher>().ptr());
  PyObject *attribute = PyObject_GetAttr(kernelObject, name);
  if (!attribute) {
    PyErr_Clear();
    return nullptr;
  }
  py::object owner = py::reinterpret_steal<py::object>(attribute);
  if (!PyObject_TypeCheck(attribute, type))
    return nullptr;
  auto *inst = reinterpret_cast<py::detail::instance *>(attribute);
  Dispatcher *dispatcher =
      inst->get_value_and_holder().value_ptr<Dispatcher>();
  Py_INCREF(kernelObject);
  Py_XDECREF(lastKernel);
  lastKernel = kernelObject;
  lastDispatcher = dispatcher;
  return dispatcher;
}

void readExtents(PyObject *range, int64_t *out, int *dims) {
  Py_ssize_t n = PyTuple_GET_SIZE(range);
  for (Py_ssize_t d = 0; d < n && d < 3; ++d) {
    out[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(range, d));
    if (out[d] == -1 && PyErr_Occurred())
      throw py::error_already_set();
  }
  *dims = static_cast<int>(n);
}

/// The launch shape of `space`: Range and NdRange read directly, anything
/// else (and any error) through spirjit._launch_shape, which says what is
/// wrong in the words the Python API uses.
LaunchShape launchShape(PyObject *kernelObject, PyObject *space,
                        bool isKernel) {
  // Handles, never released: a static py::object would be released after
  // the interpreter has finalised.
  static py::handle api = py::module_::import("spirjit.kernel_api").release();
  static PyTypeObject *rangeType =
      reinterpret_cast<PyTypeObject *>(api.attr("Range").ptr());
  static PyTypeObject *ndRangeType =
      reinterpret_cast<PyTypeObject *>(api.attr("NdRange").ptr());
  LaunchShape shape;
  if (isKernel && Py_TYPE(space) == rangeType) {
    readExtents(space, shape.global, &shape.dims);
    return shape;
  }
  if (isKernel && Py_TYPE(space) == ndRangeType) {
    py::handle nd(space);
    py::object global = nd.attr("global_range"), local = nd.attr("local_range");
    if (Py_TYPE(global.ptr()) == rangeType &&
        Py_TYPE(local.ptr()) == rangeType) {
      int localDims = 0;
      readExtents(global.ptr(), shape.global, &shape.dims);
      readExtents(local.ptr(), shape.local, &localDims);
      shape.ndRange = true;
      return shape;
    }
  }
  static py::handle slow =
      py::object(py::module_::import("spirjit").attr("_launch_shape")).release();
  py::tuple parts = slow(py::handle(kernelObject), py::handle(space));
  auto global = parts[0].cast<std::vector<int64_t>>();
  auto local = parts[1].cast<std::vector<int64_t>>();
  SPIRJIT_INTERNAL_CHECK(!global.empty() && global.size() <= 3,
                         "a launch shape of 1 to 3 dimensions");
  shape.dims = static_cast<int>(global.size());
  std::copy(global.begin(), global.end(), shape.global);
  if (!local.empty()) {
    std::copy(local.begin(), local.end(), shape.local);
    shape.ndRange = true;
  }
  return shape;
}

/// A TypingError of the launch's arguments or range (no kernel line is at
/// fault) at the user's call, as a CompileError names its file:line.
std::exception_ptr atTheCall(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const PythonError &e) {
    if (e.className() == "TypingError") {
      Site site = recordingSite();
      if (site.line > 0)
        return std::make_exception_ptr(
            UserError(UserErrorKind::Typing, site.file, site.line, e.what()));
    }
  } catch (...) {
  }
  return error;
}

PyObject *callKernel(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
  try {
    if (nargs < 2)
      throw PythonError("TypingError",
                        "call_kernel(kernel, index_space, *args): a kernel "
                        "and a Range or NdRange are needed");
    Dispatcher *dispatcher = dispatcherOf(args[0]);
    LaunchShape shape = launchShape(args[0], args[1], dispatcher != nullptr);
    if (!dispatcher) // a Kernel whose _dispatcher was replaced
      throw PythonError("TypingError",
                        "the kernel has no dispatcher: launch an object "
                        "made by @spirjit.kernel");
    dispatcher->launch(shape, args + 2, static_cast<size_t>(nargs - 2));
    Py_RETURN_NONE;
  } catch (...) {
    setPythonError(atTheCall(std::current_exception()));
    return nullptr;
  }
}

PyObject *callKernelAsync(PyObject *, PyObject *const *args,
                          Py_ssize_t nargs) {
  try {
    if (nargs < 3)
      throw PythonError("TypingError",
                        "call_kernel_async(kernel, index_space, "
                        "dependent_events, *args): a kernel, a Range or "
                        "NdRange and a sequence of Events are needed");
    Dispatcher *dispatcher = dispatcherOf(args[0]);
    LaunchShape shape = launchShape(args[0], args[1], dispatcher != nullptr);
    if (!dispatcher) // a Kernel whose _dispatcher was replaced
      throw PythonError("TypingError",
                        "the kernel has no dispatcher: launch an object "
                        "made by @spirjit.kernel");
    // dependent_events: a sequence of Events (None or () for none).
    PyObject *events = args[2];
    py::object held;
    PyObject *const *dependencies = nullptr;
    Py_ssize_t count = 0;
    if (events != Py_None) {
      held = py::reinterpret_steal<py::object>(PySequence_Fast(events, ""));
      if (!held) {
        PyErr_Clear();
        throw PythonError("TypingError",
                          "call_kernel_async's dependent_events must be a "
                          "sequence of Events, not " +
                              std::string(Py_TYPE(events)->tp_name));
      }
      count = PySequence_Fast_GET_SIZE(held.ptr());
      dependencies = PySequence_Fast_ITEMS(held.ptr());
      for (Py_ssize_t k = 0; k < count; ++k)
        if (!eventOf(dependencies[k]))
          throw PythonError(
              "TypingError",
              "call_kernel_async's dependent_events must hold Events "
              "returned by call_kernel_async, not " +
                  std::string(Py_TYPE(dependencies[k])->tp_name));
    }
    return dispatcher->enqueue(shape, dependencies,
                               static_cast<size_t>(count), args + 3,
                               static_cast<size_t>(nargs - 3));
  } catch (...) {
    setPythonError(atTheCall(std::current_exception()));
    return nullptr;
  }
}

} // namespace

// spirjit.Event as a plain CPython type holding the C++ Event in place:
// an asynchronous launch creates one object, with no registry to update.
namespace {
struct EventObject {
  PyObject_HEAD
  Event event;
};

void deallocEvent(PyObject *self) {
  reinterpret_cast<EventObject *>(self)->event.~Event();
  Py_TYPE(self)->tp_free(self);
}

PyObject *waitEvent(PyObject *self, PyObject *) {
  try {
    reinterpret_cast<EventObject *>(self)->event.wait();
    Py_RETURN_NONE;
  } catch (...) {
    setPythonError(std::current_exception());
    return nullptr;
  }
}

PyObject *eventDone(PyObject *self, void *) {
  return PyBool_FromLong(reinterpret_cast<EventObject *>(self)->event.done());
}

PyMethodDef eventMethods[] = {
    {"wait", waitEvent, METH_NOARGS,
     "waits for the launch, re-raises a device error, and writes NumPy "
     "arguments back"},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef eventProperties[] = {
    {"done", eventDone, nullptr,
     "True once wait() has returned (the launch finished and NumPy "
     "arguments were written back)",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject eventType = [] {
  PyTypeObject type{PyVarObject_HEAD_INIT(nullptr, 0)};
  type.tp_name = "spirjit.Event";
  type.tp_basicsize = sizeof(EventObject);
  type.tp_dealloc = deallocEvent;
  type.tp_flags = Py_TPFLAGS_DEFAULT;
  type.tp_doc = "A launch in flight, returned by call_kernel_async.";
  type.tp_methods = eventMethods;
  type.tp_getset = eventProperties;
  return type;
}();
} // namespace

PyObject *newEventObject() {
  PyObject *self = eventType.tp_alloc(&eventType, 0);
  if (!self)
    throw py::error_already_set();
  new (&reinterpret_cast<EventObject *>(self)->event) Event();
  return self;
}

Event *eventOf(PyObject *object) {
  if (Py_TYPE(object) != &eventType)
    return nullptr;
  return &reinterpret_cast<EventObject *>(object)->event;
}

void addEventType(PyObject *module) {
  if (PyType_Ready(&eventType) < 0)
    throw py::error_already_set();
  Py_INCREF(&eventType);
  if (PyModule_AddObject(module, "Event",
                         reinterpret_cast<PyObject *>(&eventType)) < 0)
    throw py::error_already_set();
}

PyMethodDef callKernelMethods[] = {
    {"call_kernel", reinterpret_cast<PyCFunction>(
                        reinterpret_cast<void (*)()>(callKernel)),
     METH_FASTCALL,
     "call_kernel(kernel, index_space, *args)\n\nLaunches `kernel` over "
     "`index_space` (a Range or NdRange) and waits for it."},
    {"call_kernel_async",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(callKernelAsync)),
     METH_FASTCALL,
     "call_kernel_async(kernel, index_space, dependent_events, *args) -> "
     "Event\n\nLaunches after `dependent_events` and returns an Event at "
     "once; Event.wait() waits, re-raises any device error and writes NumPy "
     "arguments back. Compile errors are raised here, at the call."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace spirjit::python

