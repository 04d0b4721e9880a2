#include "frontend/SSABuilder.h"

namespace spirjit::ir {

bool isTrivialPhi(const Instruction *phi, Instruction **same) {
  *same = nullptr;
  for (Instruction *operand : phi->operands) {
    if (operand == *same || operand == phi)
      continue;
    if (*same)
      return false; // merges at least two values
    *same = operand;
  }
  return true;
}

} // namespace spirjit::ir
