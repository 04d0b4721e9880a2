// Private to the bytecode-to-pyir translation (BuildPyIR.cpp and
// BuildPyIRContainers.cpp): the builder that walks the bytecode blocks with
// the interpreter's value stack. Nothing outside frontend/BuildPyIR*.cpp
// includes it; buildPyIR (BuildPyIR.h) is the entry point.
#pragma once

#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"
#include "frontend/FunctionDescription.h"
#include "frontend/PyIR.h"
#include "frontend/SSABuilder.h"
#include "frontend/UnsupportedConstructs.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace spirjit::pyir_builder {

using ir::Block;
using ir::Instruction;
using ir::Opcode;
using ir::SSABuilder;

inline std::string slotName(size_t slot) {
  return "$stack" + std::to_string(slot);
}

class Builder {
public:
  Builder(const FunctionDescription &desc, const ControlFlowGraph &cfg)
      : desc_(desc), cfg_(cfg) {}

  std::unique_ptr<ir::Function> run();

private:
  [[noreturn]] void unsupported(int line, const std::string &what) {
    throw unsupportedConstruct(desc_.filename, line, what);
  }
  [[noreturn]] void malformed(int line, const std::string &what) {
    throw UserError(UserErrorKind::Compile, desc_.filename, line,
                    "malformed bytecode: " + what);
  }

  Instruction *pop(int line) {
    if (stack_.empty())
      malformed(line, "value stack underflow");
    Instruction *v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Instruction *peek(size_t depth, int line) {
    if (depth == 0 || depth > stack_.size())
      malformed(line, "value stack underflow");
    return stack_[stack_.size() - depth];
  }
  Instruction *emit(Opcode op, std::vector<Instruction *> operands, int line) {
    return function_->create(current_, op, std::move(operands), line);
  }
  Instruction *emitConst(const ConstValue &value, int line);
  Instruction *makeSlice(Instruction *start, Instruction *stop,
                         Instruction *step, int line) {
    std::vector<Instruction *> operands = {start, stop};
    if (step)
      operands.push_back(step);
    return emit(Opcode::Slice, operands, line);
  }
  const std::string &nameAt(const std::vector<std::string> &list, int index,
                            int line) {
    if (index < 0 || index >= static_cast<int>(list.size()))
      malformed(line, "name index " + std::to_string(index) + " out of range");
    return list[index];
  }
  void translate(const BytecodeInstruction &inst, int bytecodeBlock);
  /// Subscripts, slices, tuples and lists (BuildPyIRContainers.cpp): false
  /// when the instruction is none of them.
  bool translateContainer(const BytecodeInstruction &inst);
  void endBlock(int bytecodeBlock, const std::vector<Block *> &targets,
                std::vector<size_t> depths, Instruction *terminatorOperand,
                int line);

  const FunctionDescription &desc_;
  const ControlFlowGraph &cfg_;
  std::unique_ptr<ir::Function> function_;
  std::unique_ptr<SSABuilder> ssa_;
  std::vector<Block *> blocks_; // IR block of each bytecode block
  std::vector<int> entryDepth_; // stack depth at entry, -1 while unknown
  std::vector<char> filled_;
  Block *current_ = nullptr;
  std::vector<Instruction *> stack_;
  Instruction *null_ = nullptr; // the NULL that CPython pushes before calls
  /// Calls whose NULL slot was a phi when built (Builder::run).
  std::vector<Instruction *> callsAfterPhis_;
  Instruction *undef_ = nullptr; // a local's value before any write
  /// 3.12: the next BUILD_LIST starts an inlined comprehension's list.
  bool comprehensionNext_ = false;
  std::set<const Instruction *> comprehensionLists_;
  /// What LOAD_ASSERTION_ERROR pushed, until the raise makes an `assert`.
  std::set<const Instruction *> assertionErrors_;
  std::vector<Instruction *> strings_;
  std::set<const Instruction *> getattrNames_; // strings getattr consumed
  const std::string *constantString(const Instruction *value) const;
  void foldConstantGetattr();
  void orderNamedTupleArguments();
  void checkStrings();
  Instruction *makeFunction(int flags, int line);
  /// Each call of a function with cells, and the value of each cell
  /// (desc_.cellvars' order) where it is.
  std::vector<CellsAtCall> cellsAtCalls_;
  /// A list literal is a tuple of constant length: what would change it
  /// (a method, an item assignment) or return it is refused at its line.
  void checkLists();
  bool pendingKeywords_ = false;
  std::vector<std::string> keywords_;
  bool terminated_ = false;
};

} // namespace spirjit::pyir_builder
