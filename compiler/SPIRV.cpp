#include "compiler/SPIRV.h"

#include "frontend/Diagnostics.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <spirv-tools/libspirv.hpp>

#include <cstring>
#include <sstream>

namespace spirjit {

namespace {
/// SPIR-V has integers of 8, 16, 32 and 64 bits (and bool); an LLVM module
/// with another width would make the translator end the whole process, so
/// it is caught here as a spirjit bug instead.
void checkIntegerWidths(const llvm::Module &module) {
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block) {
        llvm::Type *type = inst.getType();
        if (auto *vector = llvm::dyn_cast<llvm::VectorType>(type))
          type = vector->getElementType();
        if (auto *integer = llvm::dyn_cast<llvm::IntegerType>(type)) {
          unsigned bits = integer->getBitWidth();
          SPIRJIT_INTERNAL_CHECK(bits == 1 || bits == 8 || bits == 16 ||
                                     bits == 32 || bits == 64,
                                 "an i" + std::to_string(bits) +
                                     " value in " + function.getName().str() +
                                     " cannot be expressed in SPIR-V");
        }
      }
}

/// SPIR-V wants every block after its dominator; LLVM keeps blocks in any
/// order. Reverse post-order puts each dominator first.
void orderBlocksForSPIRV(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    llvm::ReversePostOrderTraversal<llvm::Function *> order(&function);
    llvm::BasicBlock *previous = nullptr;
    for (llvm::BasicBlock *block : order) {
      if (previous)
        block->moveAfter(previous);
      previous = block;
    }
  }
}
} // namespace

std::vector<uint32_t> emitSPIRV(llvm::Module &module) {
  checkIntegerWidths(module);
  orderBlocksForSPIRV(module);
  std::ostringstream out;
  std::string error;
  // SPIR-V 1.0 is what OpenCL 1.2-era consumers (and the validator's
  // OpenCL 1.2 environment) accept; the translator says so if it needs more.
  SPIRV::TranslatorOpts options(SPIRV::VersionNumber::SPIRV_1_0);
  options.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::OpenCL12);
  bool ok = llvm::writeSpirv(&module, options, out, error);
  SPIRJIT_INTERNAL_CHECK(ok, "the SPIR-V translator failed: " + error);
  std::string bytes = out.str();
  SPIRJIT_INTERNAL_CHECK(bytes.size() % 4 == 0, "SPIR-V size not in words");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

std::string validateSPIRV(const std::vector<uint32_t> &words) {
  spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                               const spv_position_t &position,
                               const char *message) {
    messages += "word " + std::to_string(position.index) + ": " + message +
                "\n";
  });
  if (tools.Validate(words))
    return "";
  return messages.empty() ? "invalid SPIR-V" : messages;
}

std::string disassembleSPIRV(const std::vector<uint32_t> &words) {
  spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
  std::string text;
  bool ok = tools.Disassemble(words, &text,
                              SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                                  SPV_BINARY_TO_TEXT_OPTION_INDENT);
  SPIRJIT_INTERNAL_CHECK(ok, "SPIR-V disassembly failed");
  return text;
}

std::vector<char> lowerSPIRVToSPIRBitcode(const std::vector<uint32_t> &words) {
  llvm::LLVMContext context;
  context.setOpaquePointers(false);
  std::string bytes(reinterpret_cast<const char *>(words.data()),
                    words.size() * 4);
  std::istringstream in(bytes);
  llvm::Module *raw = nullptr;
  std::string error;
  bool ok = llvm::readSpirv(context, in, raw, error);
  std::unique_ptr<llvm::Module> module(raw);
  SPIRJIT_INTERNAL_CHECK(ok, "reading SPIR-V back failed: " + error);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(*module, os);
  return std::vector<char>(buffer.begin(), buffer.end());
}

} // namespace spirjit
