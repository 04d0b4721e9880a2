// Two kinds of error, kept apart from the first line of code.
//
// A UserError is about the user's program: it names the construct, the
// user's file and line, and becomes a Python exception of the documented
// class (spirjit.errors.*). An InternalError is a bug in spirjit: it names
// spirjit's own source location and is never the user's fault.
#pragma once

#include <stdexcept>
#include <string>

namespace spirjit {

/// Which spirjit.errors class a UserError becomes in Python.
enum class UserErrorKind {
  Compile,            // CompileError
  Typing,             // TypingError
  UnsupportedFeature, // UnsupportedFeatureError
  KernelReturnValue,  // KernelHasReturnValueError
};

class UserError : public std::runtime_error {
public:
  UserError(UserErrorKind kind, std::string filename, int line,
            const std::string &message)
      : std::runtime_error(format(filename, line, message)), kind_(kind),
        filename_(std::move(filename)), line_(line), message_(message) {}

  UserErrorKind kind() const { return kind_; }
  const std::string &filename() const { return filename_; }
  int line() const { return line_; }
  /// The message without the `file:line: ` prefix.
  const std::string &message() const { return message_; }

private:
  static std::string format(const std::string &filename, int line,
                            const std::string &message) {
    return filename + ":" + std::to_string(line) + ": " + message;
  }
  UserErrorKind kind_;
  std::string filename_;
  int line_;
  std::string message_;
};

class InternalError : public std::logic_error {
public:
  InternalError(const char *file, int line, const std::string &message)
      : std::logic_error(std::string("internal compiler error at ") + file +
                         ":" + std::to_string(line) + ": " + message +
                         " (this is a bug in spirjit, please report it)") {}
};

} // namespace spirjit

/// Checks an invariant of spirjit itself; failure is a bug, not a user error.
#define SPIRJIT_INTERNAL_CHECK(cond, msg)                                      \
  do {                                                                         \
    if (!(cond))                                                               \
      throw ::spirjit::InternalError(__FILE__, __LINE__, (msg));               \
  } while (0)
