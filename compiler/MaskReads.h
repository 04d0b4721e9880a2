// Reading `a[mask]` in jit host code: NumPy's boolean indexing, the
// elements where a mask of a's shape holds, in C order, as a new 1-D array.
//
// Why a pass after typing: whether `a[x]` is a boolean mask is known only
// once types are; the jit library writes the read (`mask_index` in
// python/spirjit/_jit_library.py: a count, a prefix sum and a scatter, each
// a prange pass), so the read becomes a call the inliner puts in place.
//
// Contract: requires the typed host function (FunctionKind::Host). Each
// getitem of an array by a boolean array becomes a call of the library's
// "spirjit.mask_index#2", the array and the mask its arguments; a read
// inside a prange loop's body is a UserError (the body is a kernel, which
// makes no arrays). Where the description lacks that library entry
// (descriptions have it only when asked), throws LibraryOperationsNeeded
// {"mask_index"}, nothing changed. Returns the description to inline and
// type the function with again (the host's, plus the callee's global),
// every type cleared; nullptr, and nothing changed, where the function
// reads no array through a mask.
#pragma once

#include "compiler/TypeInference.h"

#include <memory>

namespace spirjit {

std::shared_ptr<FunctionDescription> lowerMaskReads(TypedFunction &host);

} // namespace spirjit
