// A driver library opened at run time, so that spirjit links none: the
// OpenCL ICD loader (OpenCLLoader.cpp), the Level Zero loader
// (LevelZeroLoader.cpp) and CUDA's driver (CUDA.cpp). Without the library
// a backend lists no device.
#pragma once

#include <cstdlib>
#include <dlfcn.h>

namespace spirjit::runtime {

/// The library the environment variable `variable` names, else
/// `standard`; nullptr where it cannot be opened.
inline void *openDriverLibrary(const char *variable, const char *standard) {
  const char *name = std::getenv(variable);
  return dlopen(name && *name ? name : standard, RTLD_NOW | RTLD_LOCAL);
}

/// `symbol` of `library` as a `Function`, or nullptr.
template <typename Function>
Function driverEntry(void *library, const char *symbol) {
  return library ? reinterpret_cast<Function>(dlsym(library, symbol)) : nullptr;
}

} // namespace spirjit::runtime
