// Python's cycle collector for bound C++ classes that hold a Python object.
//
// A kernel's or jit function's dispatcher holds its describe callback, which
// holds the Python function, whose globals (a notebook cell's, an exec'd
// source's) hold the spirjit.Kernel, which holds the dispatcher. Refcounting
// never frees that cycle, and the collector cannot see through a pybind11
// object unless its type says what it holds: without this every kernel
// defined and dropped outside a module's lifetime stayed for the process,
// compiled programs and all (~1 MB each on Intel's CPU runtime).
#pragma once

#include <pybind11/pybind11.h>

namespace spirjit::python {

/// A pybind11 class option making `T` a collector-tracked type. `T` says
/// what it holds with `pybind11::object &heldObject()`; the collector visits
/// it and, to break a cycle of garbage, sets it to None.
template <typename T> pybind11::custom_type_setup collectable() {
  return pybind11::custom_type_setup([](PyHeapTypeObject *heapType) {
    PyTypeObject *type = &heapType->ht_type;
    type->tp_flags |= Py_TPFLAGS_HAVE_GC;
    type->tp_traverse = [](PyObject *self, visitproc visit, void *arg) {
      // A heap type's instances own a reference to it.
      Py_VISIT(Py_TYPE(self));
      if (pybind11::detail::is_holder_constructed(self))
        Py_VISIT(
            pybind11::cast<T &>(pybind11::handle(self)).heldObject().ptr());
      return 0;
    };
    type->tp_clear = [](PyObject *self) {
      if (pybind11::detail::is_holder_constructed(self))
        pybind11::cast<T &>(pybind11::handle(self)).heldObject() =
            pybind11::none();
      return 0;
    };
  });
}

} // namespace spirjit::python
