// The bindings' side of blocking in C++: giving up the GIL while the
// launcher waits or compiles, Ctrl-C during such a wait, and the
// interpreter going away meanwhile.
#pragma once

#include <Python.h>

#include <exception>

namespace spirjit::python {

/// Installs the launcher's caller lock (the GIL), its interrupt check
/// (Python's signal handlers: Ctrl-C raises KeyboardInterrupt in the
/// waiting thread) and an atexit hook marking the interpreter's exit.
/// Called once, at import.
void installInterpreterHooks();

/// Take the GIL back on a thread that gave it up (or never had it) in
/// C++. CPython ends a thread that asks for the GIL once the interpreter
/// is finalizing with pthread_exit, whose unwinding through C++ frames
/// aborts the process ("terminate called without an active exception").
/// So once the interpreter exits, a thread other than the exiting one
/// never returns from these: it sleeps until the process is gone. A
/// thread that asked before the exit began gets the GIL first: the exit
/// waits for it (see installInterpreterHooks).
void restoreThread(PyThreadState *state);
PyGILState_STATE ensureGil();

/// Sets the exception the interrupt check found on this thread (normally
/// KeyboardInterrupt) as the Python error; true if there was one.
bool restoreInterruption();

} // namespace spirjit::python
