// Optional values: a variable that is None on one path and a value on
// another (numba's Optional type), tested before it is used.
//
// Why: `x = None; if c: x = 3.0` ... `if x is not None: y = x + 1` is
// numba's idiom for "maybe a value". spirjit has no run-time None, so the
// variable becomes two: a flag (is it set?) and the value (undefined where
// it is None). `x is None` and `x is not None` read the flag; a use of x
// where a test has shown it is not None (a block that only the test's
// not-None edge dominates) reads the value.
//
// Contract: requires verified untyped pyir. For each phi that merges the
// constant None with another value (directly or through other phis), adds
// the flag's and the value's phis beside it and rewrites its tests and its
// uses under a test; any other use keeps the phi, which type inference
// refuses with a message that asks for the test. Unused phis it leaves go.
// The result verifies; a function without such phis is left as it was.
#pragma once

#include "frontend/PyIR.h"

namespace spirjit {

void splitOptionals(ir::Function &function);

} // namespace spirjit
