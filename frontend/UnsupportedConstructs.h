// The constructs the frontend rejects, and the errors that name them.
#pragma once

#include "frontend/Bytecode.h"
#include "frontend/Diagnostics.h"
#include "frontend/PyIR.h"

#include <string>
#include <vector>

namespace spirjit {

/// The error for a construct kernels do not compile, at its own line;
/// `planned` ones are promised for later.
UserError unsupportedConstruct(const std::string &filename, int line,
                               const std::string &what, bool planned = false);

/// The name a user knows for a construct the frontend rejects, by opcode;
/// nullptr for the opcodes it translates.
const char *unsupportedConstruct(PyOp op);

/// The name of the comprehension or nested function that a code object
/// named `codeName` (co_name: "<listcomp>", "<lambda>", ...) stands for.
const char *nestedCodeConstruct(const std::string &codeName);

/// Throws the error for a generator, coroutine or comprehension in
/// `code`, at the line of the construct (and for a lambda's or nested
/// def's keyword-only defaults, whose dict would name itself first). Runs before the exception table
/// is read as a `try`: CPython 3.12 wraps a generator's body in a hidden
/// handler (CALL_INTRINSIC_1 INTRINSIC_STOPITERATION_ERROR) and inlines
/// comprehensions inside one (PEP 709), and both must still name
/// themselves as 3.11 does.
void rejectGeneratorsAndComprehensions(
    const FunctionDescription &function,
    const std::vector<BytecodeInstruction> &code);

/// A call in a function whose locals nested functions capture (cells),
/// and the value of each cell (FunctionDescription::cellvars' order)
/// where the call is.
struct CellsAtCall {
  ir::Instruction *call;
  std::vector<ir::Instruction *> cells;
};

/// A nested function is inlined with the values its free variables had
/// where it was made (its `function` instruction's operands); Python reads
/// them when it is called. The two agree unless a captured variable is
/// assigned in between: throws for such a call (of the function, or of a
/// function it is passed to), naming the variable, and for a nested
/// function that calls itself.
void rejectCapturesAssignedBeforeCalls(const FunctionDescription &function,
                                       const std::vector<CellsAtCall> &calls);

} // namespace spirjit
