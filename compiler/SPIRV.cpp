#include "compiler/SPIRV.h"

#include "frontend/Diagnostics.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
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

namespace {
/// Does the module declare OpCapability `capability`?
bool declaresCapability(const std::vector<uint32_t> &words,
                        uint32_t capability) {
  constexpr uint32_t kOpCapability = 17;
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0)
      return false;
    if (opcode == kOpCapability && at + 1 < words.size() &&
        words[at + 1] == capability)
      return true;
    at += count;
  }
  return false;
}
} // namespace

std::string validateSPIRV(const std::vector<uint32_t> &words) {
  // 64-bit atomics (cl_khr_int64_base_atomics) are an OpenCL extension
  // that no OpenCL profile of the validator admits: such modules are
  // checked against core SPIR-V 1.0 instead.
  constexpr uint32_t kInt64Atomics = 12;
  spvtools::SpirvTools tools(declaresCapability(words, kInt64Atomics)
                                 ? SPV_ENV_UNIVERSAL_1_0
                                 : SPV_ENV_OPENCL_1_2);
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

namespace {
/// The translator reads an OpMemoryBarrier of an OpenCL 1.2 module back as
/// mem_fence(flags), which PoCL 3.1's kernel library does not export; it
/// does export the OpenCL 2.0 fence. Rewrite each call to a full fence
/// (local and global memory, sequentially consistent, device scope).
void useOpenCL2Fences(llvm::Module &module) {
  llvm::Function *oldFence = module.getFunction("_Z9mem_fencej");
  if (!oldFence)
    return;
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::FunctionCallee newFence = module.getOrInsertFunction(
      "_Z22atomic_work_item_fencej12memory_order12memory_scope",
      llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                              {i32, i32, i32}, false));
  auto *declaration = llvm::cast<llvm::Function>(newFence.getCallee());
  declaration->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *user : oldFence->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(user))
      calls.push_back(call);
  for (llvm::CallInst *call : calls) {
    llvm::IRBuilder<> builder(call);
    llvm::CallInst *fence = builder.CreateCall(
        newFence, {builder.getInt32(3), builder.getInt32(5),
                   builder.getInt32(2)});
    fence->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    call->eraseFromParent();
  }
  if (oldFence->use_empty())
    oldFence->eraseFromParent();
}
} // namespace

std::vector<char> lowerSPIRVToSPIRBitcode(const std::vector<uint32_t> &words) {
  llvm::LLVMContext context;
  context.setOpaquePointers(false);
  std::string bytes(reinterpret_cast<const char *>(words.data()),
                    words.size() * 4);
  std::istringstream in(bytes);
  llvm::Module *raw = nullptr;
  std::string error;
  // The translator's default built-in names (OpenCL 2.0: fences become
  // atomic_work_item_fence), which PoCL's kernel library defines.
  bool ok = llvm::readSpirv(context, in, raw, error);
  std::unique_ptr<llvm::Module> module(raw);
  SPIRJIT_INTERNAL_CHECK(ok, "reading SPIR-V back failed: " + error);
  useOpenCL2Fences(*module);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(*module, os);
  return std::vector<char>(buffer.begin(), buffer.end());
}

std::string disassembleSPIRBitcode(const std::vector<char> &bitcode) {
  llvm::LLVMContext context;
  context.setOpaquePointers(false);
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(bitcode.data(), bitcode.size()), "spir", false);
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::parseBitcodeFile(buffer->getMemBufferRef(), context);
  SPIRJIT_INTERNAL_CHECK(static_cast<bool>(module),
                         "unreadable SPIR bitcode: " +
                             llvm::toString(module.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return os.str();
}

} // namespace spirjit
