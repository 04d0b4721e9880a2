#include "python/bindings/Interpreter.h"

#include "launch/Launcher.h"

#include <pybind11/pybind11.h>

#include <condition_variable>
#include <mutex>
#include <pthread.h>
#include <unistd.h>

namespace py = pybind11;

namespace spirjit::python {

namespace {

/// The interpreter's exit, and the threads on their way to the GIL. A
/// thread checks for the exit and counts itself in under one lock, so the
/// exit either comes before the check (the thread parks) or waits for the
/// thread to have the GIL (it does so before CPython starts finalizing,
/// after which asking for the GIL ends the thread).
struct ExitState {
  std::mutex mutex;
  std::condition_variable acquired;
  bool exiting = false;
  pthread_t exitingThread{};
  int acquiring = 0; // threads between the check and holding the GIL
};
ExitState &exitState() {
  static auto *state = new ExitState(); // never destroyed: used at exit
  return *state;
}

/// Runs `acquire` (which takes the GIL) unless the interpreter exits;
/// parks the thread for good if it does.
template <typename Acquire> auto acquireUnlessExiting(Acquire acquire) {
  ExitState &state = exitState();
  {
    std::unique_lock<std::mutex> lock(state.mutex);
    if (state.exiting && !pthread_equal(pthread_self(), state.exitingThread)) {
      lock.unlock();
      for (;;)
        pause();
    }
    ++state.acquiring;
  }
  auto result = acquire();
  bool exitWaits;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    --state.acquiring;
    exitWaits = state.exiting;
  }
  if (exitWaits) // only the exit waits on it: no wake-up per launch
    state.acquired.notify_all();
  return result;
}

/// The atexit hook: marks the exit, then lets the threads already on
/// their way take the GIL (each gives it back at its next switch or
/// launch, and parks at the one after).
void markInterpreterExit() {
  runtime::markProcessExiting();
  ExitState &state = exitState();
  std::unique_lock<std::mutex> lock(state.mutex);
  state.exitingThread = pthread_self();
  state.exiting = true;
  if (state.acquiring == 0)
    return;
  PyThreadState *self = PyEval_SaveThread();
  state.acquired.wait(lock, [&] { return state.acquiring == 0; });
  lock.unlock();
  PyEval_RestoreThread(self);
}

/// What PyErr_CheckSignals raised on this thread during a wait, kept
/// until the launcher's LaunchError reaches the bindings' translation.
thread_local PyObject *interruptType = nullptr, *interruptValue = nullptr,
                      *interruptTraceback = nullptr;

/// The launcher's interrupt check: runs Python's pending signal handlers
/// (the main thread's only; CPython runs none elsewhere).
bool interrupted() {
  if (!PyGILState_GetThisThreadState())
    return false; // a C caller's thread: no Python to ask
  PyGILState_STATE state = ensureGil();
  bool raised = PyErr_CheckSignals() < 0;
  if (raised)
    PyErr_Fetch(&interruptType, &interruptValue, &interruptTraceback);
  PyGILState_Release(state);
  return raised;
}

} // namespace

void restoreThread(PyThreadState *state) {
  acquireUnlessExiting([state] {
    PyEval_RestoreThread(state);
    return true;
  });
}

PyGILState_STATE ensureGil() {
  return acquireUnlessExiting([] { return PyGILState_Ensure(); });
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
        restoreThread(static_cast<PyThreadState *>(state));
      });
  launch::setInterruptCheck(&interrupted);
  // atexit hooks run on the exiting thread before CPython starts ending
  // the others (and after threading's non-daemon threads have joined).
  py::module_::import("atexit").attr("register")(
      py::cpp_function(&markInterpreterExit));
}

} // namespace spirjit::python
