// Loops over arrays in jit host code: `for x in a` runs over a 1-D array's
// elements and another array's rows, as NumPy iterates, and becomes
// `for i in range(len(a)): x = a[i]`; `for i, x in enumerate(a)` takes
// (i, a[i]) and `for x, y in zip(a, b)` (a[i], b[i]) over the shorter;
// `for x in (u, v, w)`, a tuple of one type, reads the tuple at the index
// (a getitem marked in range, which lowering makes compares and selects).
//
// Contract: requires the typed host function (FunctionKind::Host), in which
// such loops' iterators have the sequence-iterator type
// (types::sequenceIterator). Rewrites each in place: the iterator runs over
// range(len(a)) and each value it gives is a[i]. Returns the description to
// type the function with again (the host's, plus `len` and `range`), with
// every type cleared; nullptr, and nothing changed, when the function has no
// such loop. A row becomes a view the array-expression stage handles as any
// other.
#pragma once

#include "compiler/TypeInference.h"

#include <memory>

namespace spirjit {

std::shared_ptr<FunctionDescription> lowerSequenceLoops(TypedFunction &host);

} // namespace spirjit
