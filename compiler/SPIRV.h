// SPIR-V emission, validation and disassembly.
//
// emitSPIRV: requires a verified spir64 module with typed pointers; produces
// a SPIR-V binary through SPIRV-LLVM-Translator in-process.
// validateSPIRV: runs SPIRV-Tools' validator; returns its message, empty
// when the module is valid.
// lowerSPIRVToSPIRBitcode: the way back, for OpenCL devices that take no
// SPIR-V (PoCL 3.1): SPIR-V -> LLVM (SPIR 1.2 form) -> bitcode bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace spirjit {

std::vector<uint32_t> emitSPIRV(llvm::Module &module);
std::string validateSPIRV(const std::vector<uint32_t> &words);
std::string disassembleSPIRV(const std::vector<uint32_t> &words);
std::vector<char> lowerSPIRVToSPIRBitcode(const std::vector<uint32_t> &words);
/// SPIR bitcode as LLVM assembly text.
std::string disassembleSPIRBitcode(const std::vector<char> &bitcode);

} // namespace spirjit
