// Dominators and natural loops of a pyir function.
//
// Contract: both analyses require a verified function and only read it;
// they describe the control flow as it was when they were built, so build
// them again after a pass changes it. Blocks unreachable from the entry
// have no immediate dominator, dominate nothing, are dominated by nothing
// and belong to no loop. Every list they hand out is in the function's
// block order, so what is built from them is deterministic.
//
// The dominator tree is Cooper, Harvey and Kennedy's iterative algorithm
// ("A Simple, Fast Dominance Algorithm", 2001): CFGs of Python functions
// are small, so its simplicity beats Lengauer-Tarjan. The loop tree holds
// the natural loops of the back edges (an edge whose target dominates its
// source), one loop per header, nested by containment: what the parfor
// stage needs to find a prange loop, its body and the loops around it.
#pragma once

#include "frontend/PyIR.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace spirjit::ir {

class DominatorTree {
public:
  explicit DominatorTree(const Function &function);

  /// The immediate dominator; nullptr for the entry and unreachable blocks.
  Block *idom(const Block *block) const;
  /// Does every path from the entry to `b` pass through `a`? Reflexive.
  bool dominates(const Block *a, const Block *b) const;
  bool isReachable(const Block *block) const;
  /// The blocks `block` immediately dominates.
  const std::vector<Block *> &children(const Block *block) const;
  /// The reachable blocks in reverse post-order of a depth-first walk.
  const std::vector<Block *> &reversePostOrder() const { return order_; }

private:
  std::vector<Block *> order_;
  std::map<const Block *, unsigned> orderIndex_;
  std::map<const Block *, Block *> idom_;
  std::map<const Block *, std::vector<Block *>> children_;
};

struct Loop {
  Block *header = nullptr;
  /// The header and every block that reaches a latch without passing it.
  std::vector<Block *> blocks;
  /// The blocks that branch back to the header.
  std::vector<Block *> latches;
  /// The blocks outside the loop that a block of the loop branches to.
  std::vector<Block *> exits;
  Loop *parent = nullptr;
  std::vector<Loop *> children;
  /// 1 for an outermost loop.
  unsigned depth = 1;

  bool contains(const Block *block) const { return members.count(block); }

private:
  friend class LoopTree;
  std::set<const Block *> members;
};

class LoopTree {
public:
  LoopTree(const Function &function, const DominatorTree &dominators);

  /// Every loop, ordered by its header's place in the function.
  const std::vector<std::unique_ptr<Loop>> &loops() const { return loops_; }
  /// The loops in no other loop.
  const std::vector<Loop *> &outermost() const { return outermost_; }
  /// The innermost loop holding `block`, or nullptr.
  Loop *loopFor(const Block *block) const;
  /// How many loops hold `block`.
  unsigned depth(const Block *block) const;

private:
  std::vector<std::unique_ptr<Loop>> loops_;
  std::vector<Loop *> outermost_;
  std::map<const Block *, Loop *> innermost_;
};

} // namespace spirjit::ir
