#include "frontend/DefiniteAssignment.h"

#include "frontend/Diagnostics.h"

#include <optional>

namespace spirjit {
namespace {

/// A set of locals: one flag per `varnames` entry.
using Assigned = std::vector<bool>;

Assigned intersect(const Assigned &a, const Assigned &b) {
  Assigned result(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    result[i] = a[i] && b[i];
  return result;
}

/// Does `block` end by making the iterator of a `range(...)` of constant
/// arguments that yields at least one value?
bool makesNonEmptyConstantRange(const FunctionDescription &function,
                                const ControlFlowGraph &cfg,
                                const BytecodeBlock &block) {
  // LOAD_GLOBAL range; LOAD_CONST...; [PRECALL]; CALL; GET_ITER
  int i = block.end - 1;
  if (i < block.begin || cfg.code[i].op != PyOp::GET_ITER)
    return false;
  if (--i < block.begin || cfg.code[i].op != PyOp::CALL)
    return false;
  int count = cfg.code[i].arg;
  if (i - 1 >= block.begin && cfg.code[i - 1].op == PyOp::PRECALL)
    --i;
  if (count < 1 || count > 3 || i - count - 1 < block.begin)
    return false;
  int64_t args[3];
  for (int k = 0; k < count; ++k) {
    const BytecodeInstruction &load = cfg.code[i - count + k];
    if (load.op != PyOp::LOAD_CONST ||
        load.arg >= static_cast<int>(function.consts.size()) ||
        function.consts[load.arg].kind != ConstValue::Kind::Int)
      return false;
    args[k] = function.consts[load.arg].intValue;
  }
  const BytecodeInstruction &callee = cfg.code[i - count - 1];
  if (callee.op != PyOp::LOAD_GLOBAL ||
      (callee.arg >> 1) >= static_cast<int>(function.names.size()) ||
      function.names[callee.arg >> 1] != "range")
    return false;
  int64_t start = count == 1 ? 0 : args[0];
  int64_t stop = count == 1 ? args[0] : args[1];
  int64_t step = count == 3 ? args[2] : 1;
  if (step == 0)
    return false;
  return step > 0 ? start < stop : start > stop;
}

/// Which locals some path assigns before each block's start.
std::vector<Assigned> assignedOnSomePath(const ControlFlowGraph &cfg,
                                         const std::vector<int> &order,
                                         const Assigned &entry) {
  size_t locals = entry.size();
  std::vector<Assigned> in(cfg.blocks.size(), Assigned(locals, false));
  std::vector<Assigned> out(cfg.blocks.size(), Assigned(locals, false));
  for (bool changed = true; changed;) {
    changed = false;
    for (int b : order) {
      Assigned state = b == 0 ? entry : Assigned(locals, false);
      for (int pred : cfg.blocks[b].predecessors)
        for (size_t v = 0; v < locals; ++v)
          state[v] = state[v] || out[pred][v];
      in[b] = state;
      const BytecodeBlock &block = cfg.blocks[b];
      for (int i = block.begin; i < block.end; ++i)
        if (cfg.code[i].op == PyOp::STORE_FAST &&
            cfg.code[i].arg < static_cast<int>(locals))
          state[cfg.code[i].arg] = true;
      if (state != out[b]) {
        out[b] = std::move(state);
        changed = true;
      }
    }
  }
  return in;
}

/// Dominators and post-dominators of the bytecode blocks (Cooper, Harvey
/// and Kennedy's iterative algorithm), enough to find the branch that
/// decides whether a block runs.
class BranchTrees {
public:
  BranchTrees(const ControlFlowGraph &cfg, const std::vector<int> &order)
      : cfg_(cfg) {
    size_t n = cfg.blocks.size();
    // Dominators over the blocks reachable from the entry.
    std::vector<int> position(n, -1);
    for (size_t k = 0; k < order.size(); ++k)
      position[order[k]] = static_cast<int>(k);
    idom_ = solve(order, position, [&](int b) -> const std::vector<int> & {
      return cfg.blocks[b].predecessors;
    });
    // Post-dominators: the same on the reversed graph, from a virtual exit
    // (index n) that every block without successors leads to.
    reversed_.assign(n + 1, {});
    for (size_t b = 0; b < n; ++b) {
      if (position[b] < 0)
        continue;
      if (cfg.blocks[b].successors.empty())
        reversed_[n].push_back(static_cast<int>(b));
      for (int succ : cfg.blocks[b].successors)
        reversed_[succ].push_back(static_cast<int>(b));
    }
    std::vector<int> postOrder = reversePostOrderFrom(static_cast<int>(n));
    std::vector<int> postPosition(n + 1, -1);
    for (size_t k = 0; k < postOrder.size(); ++k)
      postPosition[postOrder[k]] = static_cast<int>(k);
    ipdom_ =
        solve(postOrder, postPosition, [&](int b) -> const std::vector<int> & {
          return b == static_cast<int>(n) ? empty_ : successorsOrExit(b);
        });
    // Pre- and post-order numbers of the post-dominator tree make "does a
    // post-dominate b" one comparison.
    std::vector<std::vector<int>> children(n + 1);
    for (int b : postOrder)
      if (b != static_cast<int>(n) && ipdom_[b] >= 0)
        children[ipdom_[b]].push_back(b);
    enter_.assign(n + 1, -1);
    leave_.assign(n + 1, -1);
    int clock = 0;
    std::vector<std::pair<int, size_t>> stack = {{static_cast<int>(n), 0}};
    enter_[n] = clock++;
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next < children[node].size()) {
        int child = children[node][next++];
        enter_[child] = clock++;
        stack.push_back({child, 0});
      } else {
        leave_[node] = clock++;
        stack.pop_back();
      }
    }
  }

  /// The nearest block dominating `b` whose branch may skip `b`; -1 when
  /// `b` runs whenever the function does (up to loops and returns).
  int decidingBranch(int b) const {
    for (int d = idom_[b]; d >= 0; d = idom_[d])
      if (cfg_.blocks[d].successors.size() > 1 && !postDominates(b, d))
        return d;
    return -1;
  }

private:
  bool postDominates(int a, int b) const {
    if (enter_[a] < 0 || enter_[b] < 0)
      return false;
    return enter_[a] <= enter_[b] && leave_[b] <= leave_[a];
  }

  const std::vector<int> &successorsOrExit(int b) {
    if (!cfg_.blocks[b].successors.empty())
      return cfg_.blocks[b].successors;
    exitOnly_ = {static_cast<int>(cfg_.blocks.size())};
    return exitOnly_;
  }

  std::vector<int> reversePostOrderFrom(int root) const {
    std::vector<int> post;
    std::vector<bool> seen(reversed_.size(), false);
    std::vector<std::pair<int, size_t>> stack = {{root, 0}};
    seen[root] = true;
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next < reversed_[node].size()) {
        int succ = reversed_[node][next++];
        if (!seen[succ]) {
          seen[succ] = true;
          stack.push_back({succ, 0});
        }
      } else {
        post.push_back(node);
        stack.pop_back();
      }
    }
    return {post.rbegin(), post.rend()};
  }

  /// Immediate dominators in the graph whose entry is order[0] and whose
  /// edges into a node `predecessors(node)` lists; -1 for the entry and
  /// nodes not in `order`.
  template <typename Predecessors>
  static std::vector<int> solve(const std::vector<int> &order,
                                const std::vector<int> &position,
                                Predecessors predecessors) {
    std::vector<int> idom(position.size(), -1);
    if (order.empty())
      return idom;
    idom[order[0]] = order[0];
    auto intersect = [&](int a, int b) {
      while (a != b) {
        while (position[a] > position[b])
          a = idom[a];
        while (position[b] > position[a])
          b = idom[b];
      }
      return a;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = 1; k < order.size(); ++k) {
        int b = order[k];
        int found = -1;
        for (int pred : predecessors(b))
          if (pred >= 0 && pred < static_cast<int>(position.size()) &&
              position[pred] >= 0 && idom[pred] >= 0)
            found = found < 0 ? pred : intersect(pred, found);
        if (found >= 0 && idom[b] != found) {
          idom[b] = found;
          changed = true;
        }
      }
    }
    idom[order[0]] = -1;
    return idom;
  }

  const ControlFlowGraph &cfg_;
  std::vector<int> idom_, ipdom_, enter_, leave_;
  std::vector<std::vector<int>> reversed_;
  std::vector<int> exitOnly_;
  const std::vector<int> empty_;
};

} // namespace

void checkDefiniteAssignment(const FunctionDescription &function,
                             const ControlFlowGraph &cfg) {
  size_t locals = function.varnames.size();
  size_t blockCount = cfg.blocks.size();
  if (blockCount == 0)
    return;
  // A FOR_ITER block whose iterator runs at least once leaves the loop
  // only after an iteration: on that edge only the back edges count.
  std::vector<bool> runsOnce(blockCount, false);
  for (size_t b = 0; b < blockCount; ++b) {
    const BytecodeBlock &block = cfg.blocks[b];
    if (block.successors.size() != 1)
      continue;
    int next = block.successors[0];
    const BytecodeBlock &head = cfg.blocks[next];
    if (head.end - head.begin == 1 &&
        cfg.code[head.begin].op == PyOp::FOR_ITER &&
        makesNonEmptyConstantRange(function, cfg, block))
      runsOnce[next] = true;
  }

  // Forward must-analysis to a fixed point, in reverse post-order; a block
  // not yet reached assumes everything assigned (the lattice's top).
  Assigned entry(locals, false);
  for (int i = 0; i < function.argCount && i < static_cast<int>(locals); ++i)
    entry[i] = true;
  std::vector<int> order = cfg.reversePostOrder();
  std::vector<std::optional<Assigned>> in(blockCount), out(blockCount),
      fromBackEdges(blockCount);
  auto transfer = [&](int b, Assigned state) {
    const BytecodeBlock &block = cfg.blocks[b];
    for (int i = block.begin; i < block.end; ++i)
      if (cfg.code[i].op == PyOp::STORE_FAST &&
          cfg.code[i].arg < static_cast<int>(locals))
        state[cfg.code[i].arg] = true;
    return state;
  };
  std::vector<int> position(blockCount, 0);
  for (size_t k = 0; k < order.size(); ++k)
    position[order[k]] = static_cast<int>(k);
  // What reaches `b` from `pred`: a loop head that runs at least once
  // passes to its exit what its back edges brought.
  auto along = [&](int pred, int b) -> std::optional<Assigned> {
    const BytecodeBlock &head = cfg.blocks[pred];
    if (runsOnce[pred] && head.successors.size() == 2 &&
        head.successors[1] == b)
      return fromBackEdges[pred];
    return out[pred];
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int b : order) {
      std::optional<Assigned> state;
      std::optional<Assigned> back;
      if (b == 0)
        state = entry;
      for (int pred : cfg.blocks[b].predecessors) {
        std::optional<Assigned> incoming = along(pred, b);
        if (!incoming)
          continue;
        state = state ? intersect(*state, *incoming) : *incoming;
        if (position[pred] >= position[b])
          back = back ? intersect(*back, *incoming) : *incoming;
      }
      if (!state)
        continue;
      if (in[b] != state || fromBackEdges[b] != back) {
        in[b] = state;
        fromBackEdges[b] = back;
        out[b] = transfer(b, *state);
        changed = true;
      }
    }
  }

  // Where some path reaches a read unassigned, the read is still fine when
  // it sits under a branch that was reached with the local assigned on some
  // path: the branch may test what the assignment's branch tested (`if c:
  // x = 1` ... `if c: use(x)`), which a flow analysis cannot see. So report
  // a read when the nearest branch deciding whether it runs was reached
  // with the local assigned on no path, or no branch decides it: then the
  // read follows the missing assignment unconditionally.
  std::vector<Assigned> may = assignedOnSomePath(cfg, order, entry);
  BranchTrees trees(cfg, order);
  for (int b : order) {
    if (!in[b])
      continue;
    Assigned state = *in[b];
    const BytecodeBlock &block = cfg.blocks[b];
    for (int i = block.begin; i < block.end; ++i) {
      const BytecodeInstruction &inst = cfg.code[i];
      if (inst.arg >= static_cast<int>(locals))
        continue;
      if (inst.op == PyOp::STORE_FAST)
        state[inst.arg] = true;
      else if (inst.op == PyOp::LOAD_FAST && !state[inst.arg]) {
        int decider = trees.decidingBranch(b);
        if (decider >= 0 && may[decider][inst.arg])
          continue;
        throw UserError(UserErrorKind::Compile, function.filename, inst.line,
                        "'" + function.varnames[inst.arg] +
                            "' may be used before it is assigned (Python "
                            "raises UnboundLocalError): assign it before "
                            "the loop or branch that may skip assigning "
                            "it");
      }
    }
  }
}

} // namespace spirjit
