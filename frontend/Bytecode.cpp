#include "frontend/Bytecode.h"

#include "frontend/Diagnostics.h"

#include <sstream>

namespace spirjit {
namespace {

enum class JumpKind { None, Forward, Backward, ForwardSkipOne };

struct OpcodeInfo {
  bool known = false;
  PyOp op = PyOp::NOP;
  int cacheEntries = 0;
  JumpKind jump = JumpKind::None;
  int shift = 0;        // the argument is arg >> shift
  PyOp flagOp = PyOp::NOP; // the opcode when the argument's low bit is set
};

struct OpcodeTable {
  OpcodeInfo entries[256];
};

const OpcodeTable &python311Table() {
  static const OpcodeTable table = [] {
    OpcodeTable t;
#define PY311(number, name, caches, kind, shift, flag)                         \
  t.entries[number] = {true, PyOp::name, caches, JumpKind::kind, shift,        \
                       PyOp::flag};
#include "frontend/Python311.def"
    return t;
  }();
  return table;
}

const OpcodeTable &python312Table() {
  static const OpcodeTable table = [] {
    OpcodeTable t;
#define PY312(number, name, caches, kind, shift, flag)                         \
  t.entries[number] = {true, PyOp::name, caches, JumpKind::kind, shift,        \
                       PyOp::flag};
#include "frontend/Python312.def"
    return t;
  }();
  return table;
}

const OpcodeTable *tableFor(int major, int minor) {
  if (major == 3 && minor == 11)
    return &python311Table();
  if (major == 3 && minor == 12)
    return &python312Table();
  return nullptr;
}

} // namespace

const char *pyOpName(PyOp op) {
  static const char *const names[] = {
#define PY_OPCODE(name) #name,
#include "frontend/Opcodes.def"
  };
  return names[static_cast<int>(op)];
}

bool isSupportedPythonVersion(int major, int minor) {
  return tableFor(major, minor) != nullptr;
}

namespace {
/// The line of each offset, asked in increasing order. CPython's co_lines()
/// ranges are sorted and disjoint, so one walk over them serves a whole
/// decoding, where FunctionDescription::lineAt searches from the first
/// range for every instruction (quadratic in the function's length).
class LineCursor {
public:
  explicit LineCursor(const FunctionDescription &function)
      : function_(function) {
    const std::vector<LineRange> &ranges = function.lines;
    for (size_t i = 1; i < ranges.size() && ordered_; ++i)
      ordered_ = ranges[i - 1].start <= ranges[i].start &&
                 ranges[i - 1].end <= ranges[i].start;
  }

  int lineAt(int offset) {
    if (!ordered_)
      return function_.lineAt(offset);
    const std::vector<LineRange> &ranges = function_.lines;
    while (next_ < ranges.size() && ranges[next_].end <= offset)
      ++next_;
    if (next_ < ranges.size() && ranges[next_].start <= offset &&
        ranges[next_].line > 0)
      return ranges[next_].line;
    return function_.firstLine;
  }

private:
  const FunctionDescription &function_;
  bool ordered_ = true;
  size_t next_ = 0;
};
} // namespace

std::vector<BytecodeInstruction>
decodeBytecode(const FunctionDescription &function) {
  auto malformed = [&](int offset, const std::string &why) {
    return UserError(UserErrorKind::Compile, function.filename,
                     function.lineAt(offset),
                     "malformed bytecode in '" + function.name + "' at offset " +
                         std::to_string(offset) + ": " + why);
  };
  const OpcodeTable *table =
      tableFor(function.pythonMajor, function.pythonMinor);
  if (!table)
    throw UserError(UserErrorKind::UnsupportedFeature, function.filename,
                    function.firstLine,
                    "Python " + std::to_string(function.pythonMajor) + "." +
                        std::to_string(function.pythonMinor) +
                        " bytecode is not supported (spirjit supports 3.11 and 3.12)");
  const std::vector<uint8_t> &code = function.code;
  if (code.empty())
    throw malformed(0, "no instructions");
  if (code.size() % 2 != 0)
    throw malformed(0, "odd code length " + std::to_string(code.size()));

  std::vector<BytecodeInstruction> out;
  LineCursor lines(function);
  int size = static_cast<int>(code.size());
  int offset = 0;
  while (offset < size) {
    int start = offset;
    unsigned extended = 0;
    int prefixes = 0;
    for (;;) {
      if (offset >= size)
        throw malformed(start, "truncated EXTENDED_ARG");
      const OpcodeInfo &info = table->entries[code[offset]];
      if (!info.known)
        throw malformed(offset, "unknown opcode " +
                                    std::to_string(code[offset]));
      unsigned arg = (extended << 8) | code[offset + 1];
      if (info.op == PyOp::EXTENDED_ARG) {
        if (++prefixes > 3)
          throw malformed(offset, "too many EXTENDED_ARG prefixes");
        extended = arg;
        offset += 2;
        continue;
      }
      BytecodeInstruction inst;
      inst.op = (arg & 1) && info.flagOp != info.op ? info.flagOp : info.op;
      inst.arg = static_cast<int>(arg >> info.shift);
      inst.offset = start;
      inst.next = offset + 2 + 2 * info.cacheEntries;
      inst.line = lines.lineAt(offset);
      if (inst.next > size)
        throw malformed(offset, "truncated inline cache");
      if (info.jump == JumpKind::Forward)
        inst.target = inst.next + 2 * inst.arg;
      else if (info.jump == JumpKind::Backward)
        inst.target = inst.next - 2 * inst.arg;
      else if (info.jump == JumpKind::ForwardSkipOne)
        inst.target = inst.next + 2 * inst.arg + 2;
      if (info.jump != JumpKind::None &&
          (inst.target < 0 || inst.target > size))
        throw malformed(offset, "jump target " + std::to_string(inst.target) +
                                    " out of range");
      offset = inst.next;
      if (inst.op != PyOp::CACHE)
        out.push_back(inst);
      break;
    }
  }
  // Jumps must land on an instruction boundary.
  std::vector<bool> starts(code.size() + 1, false);
  for (const BytecodeInstruction &inst : out)
    starts[inst.offset] = true;
  for (const BytecodeInstruction &inst : out)
    if (inst.target >= 0 && (inst.target >= size || !starts[inst.target]))
      throw malformed(inst.offset, "jump into the middle of an instruction");
  return out;
}

namespace {
/// What dis would show in parentheses: the name or constant an argument
/// refers to.
std::string argumentNote(const FunctionDescription &function,
                         const BytecodeInstruction &inst) {
  auto pick = [&](const std::vector<std::string> &list, int index) {
    return index >= 0 && index < static_cast<int>(list.size())
               ? " (" + list[index] + ")"
               : std::string();
  };
  switch (inst.op) {
  case PyOp::LOAD_FAST:
  case PyOp::STORE_FAST:
    return pick(function.varnames, inst.arg);
  case PyOp::LOAD_GLOBAL:
    return pick(function.names, inst.arg >> 1);
  case PyOp::LOAD_ATTR:
  case PyOp::LOAD_METHOD:
  case PyOp::STORE_ATTR:
    return pick(function.names, inst.arg);
  case PyOp::LOAD_CONST:
    return inst.arg < static_cast<int>(function.consts.size())
               ? " (" + function.consts[inst.arg].str() + ")"
               : std::string();
  default:
    return "";
  }
}
} // namespace

std::string printBytecode(const FunctionDescription &function,
                          const std::vector<BytecodeInstruction> &code) {
  std::ostringstream os;
  os << "bytecode of " << function.qualifiedName << " (Python "
     << function.pythonMajor << "." << function.pythonMinor << ", "
     << function.filename << ":" << function.firstLine << ")\n";
  int lastLine = -1;
  for (const BytecodeInstruction &inst : code) {
    if (inst.line != lastLine) {
      os << "  line " << inst.line << "\n";
      lastLine = inst.line;
    }
    os << "    " << inst.offset << "\t" << pyOpName(inst.op) << " " << inst.arg;
    if (inst.target >= 0)
      os << " (to " << inst.target << ")";
    os << argumentNote(function, inst);
    os << "\n";
  }
  return os.str();
}

} // namespace spirjit
