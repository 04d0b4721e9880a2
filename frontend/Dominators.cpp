#include "frontend/Dominators.h"

#include <algorithm>

namespace spirjit::ir {

DominatorTree::DominatorTree(const Function &function) {
  if (function.blocks.empty())
    return;
  Block *entry = function.blocks.front().get();

  // Post-order by an explicit stack: deep loop nests must not exhaust the
  // native one.
  std::vector<Block *> postOrder;
  std::set<const Block *> visited{entry};
  std::vector<std::pair<Block *, size_t>> stack{{entry, 0}};
  while (!stack.empty()) {
    auto &[block, next] = stack.back();
    std::vector<Block *> successors = block->successors();
    if (next < successors.size()) {
      Block *successor = successors[next++];
      if (visited.insert(successor).second)
        stack.push_back({successor, 0});
      continue;
    }
    postOrder.push_back(block);
    stack.pop_back();
  }
  order_.assign(postOrder.rbegin(), postOrder.rend());
  for (unsigned i = 0; i < order_.size(); ++i)
    orderIndex_[order_[i]] = i;

  // The entry is its own dominator while iterating; it has none outside.
  idom_[entry] = entry;
  auto intersect = [&](Block *a, Block *b) {
    while (a != b) {
      while (orderIndex_[a] > orderIndex_[b])
        a = idom_[a];
      while (orderIndex_[b] > orderIndex_[a])
        b = idom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (Block *block : order_) {
      if (block == entry)
        continue;
      Block *candidate = nullptr;
      for (Block *pred : block->predecessors) {
        if (!idom_.count(pred))
          continue; // unreachable, or not reached by this sweep yet
        candidate = candidate ? intersect(pred, candidate) : pred;
      }
      auto it = idom_.find(block);
      if (it == idom_.end() || it->second != candidate) {
        idom_[block] = candidate;
        changed = true;
      }
    }
  }
  idom_.erase(entry);

  for (const auto &block : function.blocks)
    if (Block *parent = idom(block.get()))
      children_[parent].push_back(block.get());
}

Block *DominatorTree::idom(const Block *block) const {
  auto it = idom_.find(block);
  return it == idom_.end() ? nullptr : it->second;
}

bool DominatorTree::isReachable(const Block *block) const {
  return orderIndex_.count(block);
}

bool DominatorTree::dominates(const Block *a, const Block *b) const {
  if (!isReachable(a) || !isReachable(b))
    return false;
  for (const Block *walk = b; walk; walk = idom(walk))
    if (walk == a)
      return true;
  return false;
}

const std::vector<Block *> &DominatorTree::children(const Block *block) const {
  static const std::vector<Block *> none;
  auto it = children_.find(block);
  return it == children_.end() ? none : it->second;
}

LoopTree::LoopTree(const Function &function, const DominatorTree &dominators) {
  std::map<const Block *, unsigned> position;
  for (unsigned i = 0; i < function.blocks.size(); ++i)
    position[function.blocks[i].get()] = i;
  auto inFunctionOrder = [&](std::vector<Block *> &list) {
    std::sort(list.begin(), list.end(),
              [&](Block *a, Block *b) { return position[a] < position[b]; });
    list.erase(std::unique(list.begin(), list.end()), list.end());
  };

  for (const auto &owned : function.blocks) {
    Block *header = owned.get();
    auto loop = std::make_unique<Loop>();
    loop->header = header;
    for (Block *pred : header->predecessors)
      if (dominators.dominates(header, pred))
        loop->latches.push_back(pred);
    if (loop->latches.empty())
      continue;
    inFunctionOrder(loop->latches);
    // Walk backwards from the latches; the header stops the walk, and it
    // dominates every block found, so the walk never leaves the loop.
    loop->members.insert(header);
    std::vector<Block *> work = loop->latches;
    while (!work.empty()) {
      Block *block = work.back();
      work.pop_back();
      if (!loop->members.insert(block).second)
        continue;
      for (Block *pred : block->predecessors)
        if (dominators.isReachable(pred))
          work.push_back(pred);
    }
    for (const auto &block : function.blocks)
      if (loop->contains(block.get()))
        loop->blocks.push_back(block.get());
    for (Block *block : loop->blocks)
      for (Block *successor : block->successors())
        if (!loop->contains(successor))
          loop->exits.push_back(successor);
    inFunctionOrder(loop->exits);
    loops_.push_back(std::move(loop));
  }

  // Natural loops with different headers are nested or disjoint, so a
  // loop's parent is the smallest other loop that holds its header.
  for (auto &loop : loops_) {
    for (auto &other : loops_)
      if (other != loop && other->contains(loop->header) &&
          (!loop->parent || other->blocks.size() < loop->parent->blocks.size()))
        loop->parent = other.get();
    if (loop->parent)
      loop->parent->children.push_back(loop.get());
    else
      outermost_.push_back(loop.get());
  }
  // Outer loops hold more blocks than the loops inside them: set depths
  // from the largest down, and record each block's innermost loop last.
  std::vector<Loop *> bySize;
  for (auto &loop : loops_)
    bySize.push_back(loop.get());
  std::stable_sort(bySize.begin(), bySize.end(), [](Loop *a, Loop *b) {
    return a->blocks.size() > b->blocks.size();
  });
  for (Loop *loop : bySize) {
    loop->depth = loop->parent ? loop->parent->depth + 1 : 1;
    for (Block *block : loop->blocks)
      innermost_[block] = loop;
  }
}

Loop *LoopTree::loopFor(const Block *block) const {
  auto it = innermost_.find(block);
  return it == innermost_.end() ? nullptr : it->second;
}

unsigned LoopTree::depth(const Block *block) const {
  Loop *loop = loopFor(block);
  return loop ? loop->depth : 0;
}

} // namespace spirjit::ir
