// The array-expression stage: a jit function's whole-array statements
// become prange loops, which the parfor stage then makes kernels of.
//
// Contract: requires the typed host function (FunctionKind::Host). When it
// has no array operation (a slice, arithmetic, a comparison or a NumPy
// function on whole arrays, np.where, an array assignment `a[...] = x`, an
// in-place `a op= x`, a.sum()/prod/min/max/mean/dot, a.copy(), astype)
// returns nothing. Otherwise returns untyped pyir of the same function in
// which each such statement is a prange loop nest over the elements, and
// the description that pyir is typed with (the host's, plus the globals the
// loops call: prange, range, min, max, int, numpy and its dtypes); the
// caller types it again (FunctionKind::Host) before the parfor stage.
//
// What a statement becomes:
//  - Views (a[1:-1, ::2], a[0, 1:]) never exist at run time: each is its
//    base array and, per dimension, a start, a step and a length computed
//    in the host with Python's slice rules; elements are read and written
//    in the base.
//  - Each statement's element is the array-expression graph DeviceArrays
//    record (ArrayKernel.h): loads of the arrays it reads at the loop
//    indices, host numbers as scalars, operators and ufuncs applied by
//    their ArrayOps.def names, astype as a cast, a gather a[idx] as a load
//    at idx's element, a device function as a `call` of it
//    (ArrayExpressionParts.h, StatementGraph); the loop body's element
//    code is written by the emitter of DeviceArrays' kernels
//    (ArrayValues.h). `graphs` holds each statement's graph text, which
//    the parfor dump shows.
//  - `dst[view] = expr` is one loop over dst's view; `c = expr` where c is
//    used as an array allocates c (np.empty on the call's device) and fills
//    it; a reduction is one loop with an accumulator the parfor stage
//    recognises. An expression used once in the same block is computed
//    inside its user's loop (never stored).
//  - Operands broadcast by NumPy's rule (one set of array semantics for
//    kernels, jit code and DeviceArrays): numbers, fewer dimensions
//    (aligned on the last ones), and extents of 1, stretched to the other
//    operands' extent, which is known only at run time. The host checks
//    each dimension whose extents may differ (else a ValueError names the
//    line: operands that do not broadcast together, or a value that does
//    not broadcast into an assignment's target or an in-place operator's
//    left operand, whose shape never changes; np.dot does not broadcast).
//    A loop nest that reads such an operand has two copies: the host runs
//    the one that reads element 0 along a stretched dimension only when
//    some extent differs from the loops', so the usual case keeps indices
//    the device reads as contiguous vectors.
//  - Consecutive statements of one block over the same extents fuse into
//    one loop unless one writes elements another touches at a different
//    position (numba's ParforPass fusion). A statement that reads the array
//    it writes at another position (a[1:] = a[:-1]) goes through a
//    temporary, as NumPy's does. Distinct arrays are assumed not to
//    overlap, as numba assumes.
//  - In a prange body the loops run in the body's kernel: a statement
//    that needs a temporary there is a user error (a kernel allocates
//    nothing), and the parfor stage outlines failed checks with the body,
//    where they are asserts.
#pragma once

#include "compiler/TypeInference.h"

#include <memory>
#include <optional>

namespace spirjit {

struct ArrayExpressionResult {
  std::unique_ptr<ir::Function> function;
  std::shared_ptr<FunctionDescription> description;
  /// Each statement's graph (ArrayExpression::text() and its parameters),
  /// which the parfor stage's dump shows.
  std::string graphs;
};

std::optional<ArrayExpressionResult>
lowerArrayExpressions(const TypedFunction &host);

} // namespace spirjit
