// The bindings' side of blocking in C++: giving up the GIL while the
// launcher waits or compiles, Ctrl-C during such a wait, and the
// interpreter going away meanwhile.
#pragma once

#include <exception>

namespace spirjit::python {

/// Installs the launcher's caller lock (the GIL), its interrupt check
/// (Python's signal handlers: Ctrl-C raises KeyboardInterrupt in the
/// waiting thread) and an atexit hook marking the interpreter's exit.
/// Called once, at import.
void installInterpreterHooks();

/// Called before a thread takes the GIL back from C++. Once the
/// interpreter exits, a thread other than the exiting one never returns
/// from here: CPython would end it with pthread_exit, whose unwinding
/// through C++ frames aborts the process ("terminate called without an
/// active exception"); it sleeps until the process is gone instead.
void parkIfInterpreterExiting();

/// Sets the exception the interrupt check found on this thread (normally
/// KeyboardInterrupt) as the Python error; true if there was one.
bool restoreInterruption();

} // namespace spirjit::python
