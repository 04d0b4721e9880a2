// Which integer values of a typed function are never negative.
//
// Why: NumPy indexing counts a negative index from the end, so every
// a[i] pays a compare and a select unless `i` is known not to be negative.
// That select differs from work-item to work-item, and it stops a CPU
// runtime's vectoriser (Intel's) from seeing that neighbouring work-items
// read neighbouring elements: it gathers one by one instead of loading a
// vector. Most indices are built from work-item ids, shapes, constants and
// range counters, which this analysis recognises.
//
// Overflow: a sum or product of non-negative int64 values that wraps past
// 2**63 - 1 is counted as non-negative. As an index it is out of bounds
// either way (Python would raise IndexError; boundscheck mode reports it),
// so dropping the wrap-around changes no in-bounds access.
#pragma once

#include "compiler/TypeInference.h"

#include <unordered_set>

namespace spirjit {

/// The integer (and bool) instructions of `typed` whose value is never
/// negative: non-negative constants, unsigned integers, work-item queries,
/// shapes, sizes, len(), counters of range() loops with a non-negative
/// start and step, and + * // % & | ^ >> << min max of those; a phi when
/// all its incoming values are (the greatest fixed point, so a loop
/// counter that only grows qualifies).
/// Contract: requires a typed function; reads it only.
std::unordered_set<const ir::Instruction *>
findNonNegativeIntegers(const TypedFunction &typed);

} // namespace spirjit
