// pyir: spirjit's one intermediate representation above LLVM.
//
// A Function holds Blocks of Instructions in SSA form: every instruction is
// a value defined once; Python locals and the interpreter's value stack have
// both become SSA values, merged by `phi` at block entries (one operand per
// predecessor, in the block's predecessor order). Every instruction carries
// the source line it came from, so any later error can name the user's line.
//
// Semantics are Python's, not C's: `//` and `%` floor toward negative
// infinity, `/` is true division, comparisons of mixed types compare values.
// Types are not part of the untyped IR: type inference (compiler/) fills
// `Instruction::type` in place, and the `typed` stage prints it. Integer
// arithmetic then wraps at the width of its type (NumPy's rule); float
// arithmetic follows IEEE 754 without reassociation unless fastmath is on.
// Evaluation order is the order of instructions in a block.
//
// The list of opcodes is closed: PyIROpcodes.def. The verifier checks the
// structural rules after every pass that changes the IR.
#pragma once

#include "frontend/FunctionDescription.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spirjit {
struct Type; // defined by the compiler; opaque to the frontend
}

namespace spirjit::ir {

enum class Opcode : unsigned char {
#define PYIR_OPCODE(name, text, least, most, terminator) name,
#include "frontend/PyIROpcodes.def"
};

const char *opcodeName(Opcode opcode);
/// The least and the most operands it takes; the most is -1 when unbounded.
int opcodeMinOperands(Opcode opcode);
int opcodeMaxOperands(Opcode opcode);
bool isTerminator(Opcode opcode);

enum class BinaryOperator : unsigned char {
  Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr,
  BitXor, MatMul
};
enum class UnaryOperator : unsigned char { Neg, Pos, Not, Invert };
/// In and NotIn: `a in b` (membership of a in the container b, operand 1).
enum class CompareOperator : unsigned char {
  Lt, Le, Eq, Ne, Gt, Ge, Is, IsNot, In, NotIn
};

const char *binaryOperatorText(BinaryOperator op);
const char *unaryOperatorText(UnaryOperator op);
const char *compareOperatorText(CompareOperator op);

class Block;
class Function;

class Instruction {
public:
  Opcode opcode;
  std::vector<Instruction *> operands;
  /// branch: one target; condbr: true target, false target.
  std::vector<Block *> targets;
  Block *parent = nullptr;
  int line = 0;
  unsigned id = 0; // printed as %id; unique within the function

  // Attributes; which ones an opcode uses is stated in PyIROpcodes.def.
  int64_t index = 0;    // arg: parameter index; tuple_get: element index;
                        // binop/unop/cmp: the operator; launch: the parfor
  std::string name;     // arg, global, freevar, getattr: the name; fail:
                        // the message
  ConstValue constant;  // const
  const Type *type = nullptr; // filled by type inference

  bool isa(Opcode op) const { return opcode == op; }
};

class Block {
public:
  unsigned id = 0;
  Function *parent = nullptr;
  std::vector<std::unique_ptr<Instruction>> instructions;
  std::vector<Block *> predecessors;

  Instruction *terminator() const {
    return instructions.empty() || !isTerminator(instructions.back()->opcode)
               ? nullptr
               : instructions.back().get();
  }
  std::vector<Block *> successors() const;
};

class Function {
public:
  std::string name;
  std::string filename;
  int firstLine = 0;
  std::vector<std::string> parameterNames;
  std::vector<std::unique_ptr<Block>> blocks; // blocks[0] is the entry

  Block *addBlock();
  /// Creates an instruction; `insert` appends it to `block`, or places it
  /// before the block's first non-phi instruction for a phi.
  Instruction *create(Block *block, Opcode opcode,
                      std::vector<Instruction *> operands, int line);
  /// Replaces every use of `from` by `to` (phis included).
  void replaceAllUsesWith(Instruction *from, Instruction *to);
  void erase(Instruction *inst);
  /// Makes later create/addBlock number from at least these ids on; for a
  /// copy that keeps the ids of its original (cloneFunction), so that it
  /// prints the same and what is created afterwards never reuses an id.
  void reserveIds(unsigned instructionIds, unsigned blockIds);

private:
  unsigned nextId_ = 0;
  unsigned nextBlockId_ = 0;
};

/// A call's keyword names, in order (its name: "k,dtype"; PyIROpcodes.def).
std::vector<std::string> callKeywords(const Instruction &call);

/// Prints the function. `annotate` may add text after each instruction
/// (the `typed` stage prints the type there).
std::string print(const Function &function,
                  const std::function<std::string(const Instruction &)>
                      &annotate = nullptr);

/// Checks structural invariants: operand counts, one terminator per block at
/// its end, phis first with one operand per predecessor, predecessor lists
/// that match the terminators, operands defined in this function.
/// Returns an empty string when the function is well formed.
std::string verify(const Function &function);

} // namespace spirjit::ir
