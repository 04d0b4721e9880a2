// Refuses what the target device cannot run, at the user's line, before
// any code is generated: a driver's build failure names no line of theirs.
#pragma once

#include "compiler/TypeInference.h"

#include <string>
#include <vector>

namespace spirjit {

/// Arguments of a kernel: what is wrong with a float64 or complex128
/// argument (scalar or array element) on a device without fp64, naming the
/// argument, or "" when nothing is. `argumentTypes` are the Python
/// arguments after the item; `deviceName` appears in the message. The
/// launcher asks before it compiles (and reports it as the launch's
/// TypingError); compileKernel raises it at the function's first line.
std::string
argumentCapabilityProblem(const std::vector<const Type *> &argumentTypes,
                          bool hasFp64, const std::string &deviceName);

/// Requires a typed kernel and the device functions it calls (typed into
/// `specializations`); changes nothing. Without fp64, the first instruction
/// whose value is float64 or complex128 (or an array of them), in the
/// kernel and then in each device function, is a UserError(Typing) at that
/// instruction's line.
void checkDeviceCapabilities(const TypedFunction &kernel,
                             const Specializations &specializations,
                             bool hasFp64, const std::string &deviceName);

} // namespace spirjit
