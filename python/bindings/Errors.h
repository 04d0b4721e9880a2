// Errors raised from C++ as a named class of spirjit.errors.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace spirjit::python {

/// Becomes spirjit.errors.<className>(message) in Python.
class PythonError : public std::runtime_error {
public:
  PythonError(std::string className, const std::string &message)
      : std::runtime_error(message), className_(std::move(className)) {}
  const std::string &className() const { return className_; }

private:
  std::string className_;
};

/// Sets the Python error for a C++ exception, as pybind11's translators
/// would (for entry points that pybind11 does not wrap).
void setPythonError(std::exception_ptr error);

} // namespace spirjit::python
