#include "frontend/PyIR.h"

#include "frontend/Diagnostics.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace spirjit::ir {
namespace {

struct OpcodeInfo {
  const char *text;
  int leastOperands, mostOperands;
  bool terminator;
};

const OpcodeInfo &info(Opcode opcode) {
  static const OpcodeInfo table[] = {
#define PYIR_OPCODE(name, text, least, most, terminator)                       \
  {text, least, most, terminator},
#include "frontend/PyIROpcodes.def"
  };
  return table[static_cast<int>(opcode)];
}

} // namespace

const char *opcodeName(Opcode opcode) { return info(opcode).text; }
int opcodeMinOperands(Opcode opcode) { return info(opcode).leastOperands; }
int opcodeMaxOperands(Opcode opcode) { return info(opcode).mostOperands; }
bool isTerminator(Opcode opcode) { return info(opcode).terminator; }

const char *binaryOperatorText(BinaryOperator op) {
  static const char *const text[] = {"+",  "-",  "*", "/", "//", "%", "**",
                                     "<<", ">>", "&", "|", "^",  "@"};
  return text[static_cast<int>(op)];
}
const char *unaryOperatorText(UnaryOperator op) {
  static const char *const text[] = {"-", "+", "not", "~"};
  return text[static_cast<int>(op)];
}
const char *compareOperatorText(CompareOperator op) {
  static const char *const text[] = {"<",  "<=", "==", "!=",     ">",
                                     ">=", "is", "is not", "in", "not in"};
  return text[static_cast<int>(op)];
}

std::vector<Block *> Block::successors() const {
  Instruction *term = terminator();
  return term ? term->targets : std::vector<Block *>{};
}

Block *Function::addBlock() {
  blocks.push_back(std::make_unique<Block>());
  blocks.back()->id = nextBlockId_++;
  blocks.back()->parent = this;
  return blocks.back().get();
}

Instruction *Function::create(Block *block, Opcode opcode,
                              std::vector<Instruction *> operands, int line) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = opcode;
  inst->operands = std::move(operands);
  inst->parent = block;
  inst->line = line;
  inst->id = nextId_++;
  Instruction *raw = inst.get();
  auto &list = block->instructions;
  if (opcode == Opcode::Phi) {
    auto firstNonPhi = std::find_if(list.begin(), list.end(), [](auto &i) {
      return i->opcode != Opcode::Phi;
    });
    list.insert(firstNonPhi, std::move(inst));
  } else {
    list.push_back(std::move(inst));
  }
  return raw;
}

void Function::replaceAllUsesWith(Instruction *from, Instruction *to) {
  for (auto &block : blocks)
    for (auto &inst : block->instructions)
      for (Instruction *&operand : inst->operands)
        if (operand == from)
          operand = to;
}

void Function::erase(Instruction *inst) {
  auto &list = inst->parent->instructions;
  list.erase(std::find_if(list.begin(), list.end(),
                          [&](auto &i) { return i.get() == inst; }));
}

void Function::reserveIds(unsigned instructionIds, unsigned blockIds) {
  nextId_ = std::max(nextId_, instructionIds);
  nextBlockId_ = std::max(nextBlockId_, blockIds);
}

static void printAttributes(std::ostream &os, const Instruction &inst) {
  switch (inst.opcode) {
  case Opcode::Arg:
    os << " " << inst.index << " '" << inst.name << "'";
    break;
  case Opcode::Const:
    os << " " << inst.constant.str();
    break;
  case Opcode::Global:
  case Opcode::GetAttr:
    os << " '" << inst.name << "'";
    break;
  case Opcode::MakeFunction:
    os << " '" << inst.name << "'";
    if (inst.index)
      os << " defaults " << inst.index;
    break;
  case Opcode::FreeVar:
    os << " " << inst.index << " '" << inst.name << "'";
    break;
  case Opcode::BinaryOp:
    os << " " << binaryOperatorText(static_cast<BinaryOperator>(inst.index));
    break;
  case Opcode::UnaryOp:
    os << " " << unaryOperatorText(static_cast<UnaryOperator>(inst.index));
    break;
  case Opcode::Compare:
    os << " " << compareOperatorText(static_cast<CompareOperator>(inst.index));
    break;
  case Opcode::TupleGet:
  case Opcode::Launch:
  case Opcode::Random:
    os << " " << inst.index;
    break;
  case Opcode::Fail:
    os << " '" << inst.name << "'";
    break;
  case Opcode::Call:
    if (!inst.name.empty())
      os << " keywords(" << inst.name << ")";
    break;
  case Opcode::Return:
    if (!inst.name.empty())
      os << " '" << inst.name << "'";
    break;
  default:
    break;
  }
}

std::vector<std::string> callKeywords(const Instruction &call) {
  std::vector<std::string> keywords;
  for (size_t start = 0; !call.name.empty();) {
    size_t comma = call.name.find(',', start);
    keywords.push_back(call.name.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return keywords;
}

std::string print(const Function &function,
                  const std::function<std::string(const Instruction &)>
                      &annotate) {
  std::ostringstream os;
  os << "function " << function.name << "(";
  for (size_t i = 0; i < function.parameterNames.size(); ++i)
    os << (i ? ", " : "") << function.parameterNames[i];
  os << ")  ; " << function.filename << ":" << function.firstLine << "\n";
  for (const auto &block : function.blocks) {
    os << "bb" << block->id << ":";
    if (!block->predecessors.empty()) {
      os << "  ; preds";
      for (Block *pred : block->predecessors)
        os << " bb" << pred->id;
    }
    os << "\n";
    for (const auto &inst : block->instructions) {
      os << "  ";
      bool hasValue =
          !isTerminator(inst->opcode) && inst->opcode != Opcode::SetItem &&
          inst->opcode != Opcode::Fail && inst->opcode != Opcode::Assert;
      if (hasValue)
        os << "%" << inst->id << " = ";
      os << opcodeName(inst->opcode);
      printAttributes(os, *inst);
      for (size_t i = 0; i < inst->operands.size(); ++i)
        os << (i ? ", " : " ") << "%" << inst->operands[i]->id;
      for (size_t i = 0; i < inst->targets.size(); ++i)
        os << (i || !inst->operands.empty() ? ", " : " ") << "bb"
           << inst->targets[i]->id;
      if (annotate) {
        std::string note = annotate(*inst);
        if (!note.empty())
          os << " : " << note;
      }
      os << "  ; line " << inst->line << "\n";
    }
  }
  return os.str();
}

std::string verify(const Function &function) {
  std::ostringstream errors;
  std::set<const Instruction *> defined;
  std::set<const Block *> blocks;
  for (const auto &block : function.blocks) {
    blocks.insert(block.get());
    for (const auto &inst : block->instructions)
      defined.insert(inst.get());
  }
  std::map<const Block *, std::set<const Block *>> predecessorsOf;
  for (const auto &block : function.blocks)
    for (const Block *succ : block->successors())
      predecessorsOf[succ].insert(block.get());
  for (const auto &block : function.blocks) {
    const auto &list = block->instructions;
    if (list.empty() || !block->terminator())
      errors << "bb" << block->id << " does not end in a terminator\n";
    bool seenNonPhi = false;
    for (size_t i = 0; i < list.size(); ++i) {
      const Instruction &inst = *list[i];
      if (inst.parent != block.get())
        errors << "%" << inst.id << " has a wrong parent block\n";
      if (isTerminator(inst.opcode) && i + 1 != list.size())
        errors << "%" << inst.id << ": terminator in the middle of bb"
               << block->id << "\n";
      int least = opcodeMinOperands(inst.opcode);
      int most = opcodeMaxOperands(inst.opcode);
      int count = static_cast<int>(inst.operands.size());
      if (count < least || (most >= 0 && count > most)) {
        std::string takes = most < 0 ? "at least " + std::to_string(least)
                            : least == most ? std::to_string(least)
                                            : std::to_string(least) + " to " +
                                                  std::to_string(most);
        bool one = least == 1 && most <= 1;
        errors << "%" << inst.id << ": " << opcodeName(inst.opcode) << " takes "
               << takes << (one ? " operand" : " operands") << ", has " << count
               << "\n";
      }
      if (inst.opcode == Opcode::Phi) {
        if (seenNonPhi)
          errors << "%" << inst.id << ": phi after a non-phi instruction\n";
        if (inst.operands.size() != block->predecessors.size())
          errors << "%" << inst.id << ": phi has " << inst.operands.size()
                 << " operands for " << block->predecessors.size()
                 << " predecessors\n";
      } else {
        seenNonPhi = true;
      }
      for (const Instruction *operand : inst.operands)
        if (!operand || !defined.count(operand))
          errors << "%" << inst.id << " uses a value not in the function\n";
      size_t targets = inst.opcode == Opcode::Branch       ? 1
                       : inst.opcode == Opcode::CondBranch ? 2
                                                           : 0;
      if (inst.targets.size() != targets)
        errors << "%" << inst.id << " has " << inst.targets.size()
               << " branch targets, expected " << targets << "\n";
      for (const Block *target : inst.targets)
        if (!blocks.count(target))
          errors << "%" << inst.id << " branches to a block not in the "
                 << "function\n";
    }
    // Predecessor lists must match the terminators. Comparing the sets is
    // linear; only when they differ does each block get named, in order.
    std::set<const Block *> listed(block->predecessors.begin(),
                                   block->predecessors.end());
    if (listed == predecessorsOf[block.get()])
      continue;
    for (const auto &other : function.blocks) {
      auto succ = other->successors();
      bool edge = std::find(succ.begin(), succ.end(), block.get()) != succ.end();
      bool listed = std::find(block->predecessors.begin(),
                              block->predecessors.end(),
                              other.get()) != block->predecessors.end();
      if (edge != listed)
        errors << "bb" << block->id << ": predecessor list disagrees with "
               << "the branch from bb" << other->id << "\n";
    }
  }
  return errors.str();
}

} // namespace spirjit::ir
