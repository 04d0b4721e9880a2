// The constructs the frontend rejects, and the errors that name them.
#pragma once

#include "frontend/Bytecode.h"
#include "frontend/Diagnostics.h"

#include <string>

namespace spirjit {

/// The error for a construct kernels do not compile, at its own line;
/// `planned` ones are promised for later.
UserError unsupportedConstruct(const std::string &filename, int line,
                               const std::string &what, bool planned = false);

/// The name a user knows for a construct the frontend rejects, by opcode;
/// nullptr for the opcodes it translates.
const char *unsupportedConstruct(PyOp op);

} // namespace spirjit
