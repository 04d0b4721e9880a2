#include "python/bindings/Interpreter.h"

#include "launch/Launcher.h"

#include <pybind11/pybind11.h>

#include <atomic>
#include <pthread.h>
#include <unistd.h>

namespace py = pybind11;

namespace spirjit::python {

namespace {

std::atomic<bool> exiting{false};
pthread_t exitingThread; // written before `exiting` is set

/// What PyErr_CheckSignals raised on this thread during a wait, kept
/// until the launcher's LaunchError reaches the bindings' translation.
thread_local PyObject *interruptType = nullptr, *interruptValue = nullptr,
                      *interruptTraceback = nullptr;

/// The launcher's interrupt check: runs Python's pending signal handlers
/// (the main thread's only; CPython runs none elsewhere).
bool interrupted() {
  if (!PyGILState_GetThisThreadState())
    return false; // a C caller's thread: no Python to ask
  parkIfInterpreterExiting();
  PyGILState_STATE state = PyGILState_Ensure();
  bool raised = PyErr_CheckSignals() < 0;
  if (raised)
    PyErr_Fetch(&interruptType, &interruptValue, &interruptTraceback);
  PyGILState_Release(state);
  return raised;
}

} // namespace

void parkIfInterpreterExiting() {
  if (!exiting.load(std::memory_order_acquire) ||
      pthread_equal(pthread_self(), exitingThread))
    return;
  for (;;)
    pause();
}

bool restoreInterruption() {
  if (!interruptType)
    return false;
  PyErr_Restore(interruptType, interruptValue, interruptTraceback);
  interruptType = interruptValue = interruptTraceback = nullptr;
  return true;
}

void installInterpreterHooks() {
  // The launcher may block on a thread that does not hold the GIL (a C
  // caller): then there is nothing to give up.
  launch::setCallerLock(
      []() -> void * {
        return PyGILState_Check() ? PyEval_SaveThread() : nullptr;
      },
      [](void *state) {
        if (!state)
          return;
        parkIfInterpreterExiting();
        PyEval_RestoreThread(static_cast<PyThreadState *>(state));
      });
  launch::setInterruptCheck(&interrupted);
  // atexit hooks run on the exiting thread before CPython starts ending
  // the others (and after threading's non-daemon threads have joined).
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    exitingThread = pthread_self();
    exiting.store(true, std::memory_order_release);
  }));
}

} // namespace spirjit::python
