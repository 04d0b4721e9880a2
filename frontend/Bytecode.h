// Decoding CPython bytecode into a version-independent instruction list.
//
// Contract: takes a FunctionDescription of a supported Python version;
// returns one BytecodeInstruction per real instruction (EXTENDED_ARG folded
// into its argument, inline CACHE entries skipped, jump targets resolved to
// byte offsets). Raises UserError on bytecode it cannot decode. The only
// place that knows opcode numbers is the per-version table it reads.
#pragma once

#include "frontend/FunctionDescription.h"

#include <string>
#include <vector>

namespace spirjit {

enum class PyOp : unsigned short {
#define PY_OPCODE(name) name,
#include "frontend/Opcodes.def"
};

const char *pyOpName(PyOp op);

struct BytecodeInstruction {
  PyOp op;
  int arg = 0;
  int offset = 0; // offset of the first code unit (EXTENDED_ARG prefix)
  int next = 0;   // offset after the instruction and its cache entries
  int target = -1; // jump target offset, -1 when not a jump
  int line = 0;
};

/// True when `major.minor` has an opcode table.
bool isSupportedPythonVersion(int major, int minor);

std::vector<BytecodeInstruction>
decodeBytecode(const FunctionDescription &function);

/// The `dis`-like listing printed by the `bytecode` stage.
std::string printBytecode(const FunctionDescription &function,
                          const std::vector<BytecodeInstruction> &code);

} // namespace spirjit
