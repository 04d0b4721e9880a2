// A side table keyed by pyir instruction that never answers for an erased
// one.
//
// Passes erase instructions (branches pruned while typing, loops outlined
// as parfors) and then create others, which the allocator may place at the
// address an erased one had. An entry made for the old instruction must not
// describe the new one: a folded constant 0 read back as a new prange's
// step once made a launch fail, in one run of many. Each entry therefore
// remembers the id of its instruction, which a function never reuses
// (ir::Function::create), and a lookup answers only when the ids agree.
// Lookups take live instructions, so no erased one is ever read.
#pragma once

#include "frontend/Diagnostics.h"
#include "frontend/PyIR.h"

#include <map>
#include <string>

namespace spirjit::ir {

template <typename V> class InstructionTable {
public:
  /// The entry for `inst`, made (or made again, over a stale one) empty.
  V &operator[](const Instruction *inst) {
    Entry &e = entries_[inst];
    if (e.id != inst->id)
      e = Entry{inst->id, V()};
    return e.value;
  }
  const V *find(const Instruction *inst) const {
    auto it = entries_.find(inst);
    return it != entries_.end() && it->second.id == inst->id
               ? &it->second.value
               : nullptr;
  }
  bool contains(const Instruction *inst) const { return find(inst); }
  const V &at(const Instruction *inst) const {
    const V *v = find(inst);
    SPIRJIT_INTERNAL_CHECK(v, "no entry for %" + std::to_string(inst->id));
    return *v;
  }
  /// Calls f(instruction, value) for each live instruction of `function`
  /// that has an entry, in program order.
  template <typename F> void forEach(const Function &function, F f) const {
    for (const auto &block : function.blocks)
      for (const auto &inst : block->instructions)
        if (const V *v = find(inst.get()))
          f(inst.get(), *v);
  }

private:
  struct Entry {
    unsigned id = 0;
    V value{};
  };
  std::map<const Instruction *, Entry> entries_;
};

} // namespace spirjit::ir
