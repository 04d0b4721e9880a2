#include "compiler/CloneTyped.h"

namespace spirjit {

TypedFunction cloneTypedFunction(const TypedFunction &typed,
                                 ir::ValueMap &map) {
  TypedFunction clone;
  clone.description = typed.description;
  clone.function = ir::cloneFunction(*typed.function, map);
  clone.kind = typed.kind;
  clone.argumentTypes = typed.argumentTypes;
  clone.returnType = typed.returnType;
  clone.returnTypeAsWritten = typed.returnTypeAsWritten;
  clone.usesGroupScratch = typed.usesGroupScratch;
  clone.writtenArguments = typed.writtenArguments;
  auto copyOf = [&](const ir::Instruction *inst) -> const ir::Instruction * {
    return inst ? map.values.at(inst) : nullptr;
  };
  const ir::Function &original = *typed.function;
  typed.calls.forEach(original, [&](const ir::Instruction *inst,
                                    const TypedFunction *callee) {
    clone.calls[copyOf(inst)] = callee;
  });
  typed.callArguments.forEach(
      original, [&](const ir::Instruction *inst, const auto &arguments) {
        std::vector<const ir::Instruction *> copies;
        for (const ir::Instruction *argument : arguments)
          copies.push_back(copyOf(argument));
        clone.callArguments[copyOf(inst)] = std::move(copies);
      });
  typed.constants.forEach(original,
                          [&](const ir::Instruction *inst,
                              const ConstValue &value) {
                            clone.constants[copyOf(inst)] = value;
                          });
  return clone;
}

} // namespace spirjit
