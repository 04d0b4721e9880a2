// Reads the code-object fixtures (tests/fixtures/py<ver>/*.json) into
// FunctionDescriptions, so frontend and compiler tests need no Python.
#pragma once

#include "frontend/FunctionDescription.h"

#include <string>

namespace spirjit::testing {

/// Loads tests/fixtures/<version>/<name>.json ("py311", "vecadd").
FunctionDescription loadFixture(const std::string &version,
                                const std::string &name);

} // namespace spirjit::testing
