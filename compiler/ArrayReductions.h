// Whole-array reductions in prange loops, as numba's parfors take them
// (its documentation's prange_ok_result_whole_arr):
//
//     y = np.zeros(4)
//     for i in prange(n):
//         y += x[i]            # or -=, *=, /=; under ifs, in inner loops
//
// Each of a few private copies of y, starting at the operator's identity,
// accumulates a contiguous share of the iterations; after the loop y is
// updated in place by each copy in turn, with + for += and -=, with * for
// *= and /= (numba's reduction_add and reduction_mul), so y is the same
// array as before, as in numba.
//
// Contract: requires the typed host function (FunctionKind::Host). Each
// outermost prange loop with such an accumulator (a header phi of array
// type that ParforReductions' isReduction accepts) becomes plain pyir the
// later stages already take:
//
//     g_count = min(trips, copies)                 # copies: see the .cpp
//     P = np.full((g_count,) + y.shape, identity, y.dtype)
//     for g in prange(g_count):
//         for k in range(g * trips // g_count, (g + 1) * trips // g_count):
//             i = start + k * step
//             <body, with P[g] for y>
//     for g in range(g_count):
//         y op= P[g]
//
// The loop's other carried values (scalar reductions) go on through the
// inner loop. Returns the description to type the function with again (the
// host's, plus the builtins and NumPy functions it calls), with every type
// cleared; nullptr, and nothing changed, when the function has no such
// loop. An array accumulator of a pndindex loop is a UserError.
#pragma once

#include "compiler/TypeInference.h"

#include <memory>

namespace spirjit {

std::shared_ptr<FunctionDescription> lowerArrayReductions(TypedFunction &host);

} // namespace spirjit
