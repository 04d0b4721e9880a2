// How many of a work-group's items a region of a kernel cut at its
// barriers needs to run (NativeBarriers.h), on the native CPU device.
//
// Why: a step of a tree reduction (`if lid < s: loc[lid] += loc[lid + s]`
// then a barrier) does nothing in the items past s; a region's loop over
// every item of the group tests each and, vectorised, runs masked loads
// and stores over the whole group at every step: 8 steps of 256 items
// where 255 items have work. Bounding the loop by s runs only those.
//
// Contract of regionItemBounds: requires `kernel` as splitAtBarriers
// leaves it (its regions start at `entries`, every way out of one goes
// through `leave`, whose stores are the next region's number, the uniform
// values (into the uniform area, nativeUniformName) and the items' kept
// values (into their contexts)). Answers, per region, a function of the
// kernel's parameters (internal, {i64, i64}) or null. The function
// answers {B, E}: an item whose local id in dimension 0 is B or more
// does nothing in that region but store what every item of the group
// stores alike (the next region's number, the uniform values, its kept
// values unchanged), so that a loop over the items may stop at B, given
// that at least one item runs; and where every item that runs is below
// E, each of the region's `guards` (comparisons of the kernel's) is true
// wherever such an item computes it, so that a copy of the loop may take
// them as true (a tree step's `lid < s`: no masked loads and stores).
// B and E may be past the group's extent. The function reads only what
// every item has alike at the region's start: the arguments, the
// group's queries (`groupQueries`: local and global sizes, group ids),
// the uniform area's first half; the caller inlines it before the
// region's loop and replaces its placeholders as the kernel's.
//
// It walks each region from its start: a branch whose condition it can
// compute so (uniform) chooses between the two sides' bounds; a branch on
// the local id in dimension 0 against such a value (`lid < s`, `lid <= s`,
// `lid == s` and their negations, either side) bounds the side that items
// below the bound take by it (and is one of the `guards` where the side
// holds in every item below: not `lid == s`), the other side by its own
// walk, and a guard is dropped where an item may reach it on a way not
// walked (the items' side of another guard) or not as a guard; another
// branch takes the larger of its sides; a block that writes memory or
// calls what may, a loop, a switch, or a walk past its budget needs every
// item. So `lid >= s` needs every item: its work is in the items past s.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <set>
#include <string>
#include <vector>

namespace spirjit {

/// What a region needs of its items: null, every item; else `bound`, a
/// function of the kernel's parameters answering {B, E} (two i64) and
/// `guards`, comparisons in the kernel that hold in every item below E
/// that reaches them.
struct RegionItems {
  llvm::Function *bound = nullptr;
  std::vector<llvm::ICmpInst *> guards;
};

std::vector<RegionItems>
regionItemBounds(llvm::Function &kernel,
                 const std::vector<llvm::BasicBlock *> &entries,
                 llvm::BasicBlock *leave, const std::string &localIdName,
                 const std::set<std::string> &groupQueries);

} // namespace spirjit
