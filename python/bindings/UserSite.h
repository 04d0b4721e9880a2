// The user's file and line that called into spirjit: where an array
// operation was recorded (its errors name it) and where a launch was
// called.
#pragma once

namespace spirjit::python {

/// A file name interned for the process (launch::internFileName) and a
/// line; "<unknown>" and 0 where no Python frame is the user's.
struct Site {
  const char *file = "<unknown>";
  int line = 0;
};

/// The innermost Python frame outside the spirjit package.
Site recordingSite();

} // namespace spirjit::python
