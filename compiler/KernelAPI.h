// The kernel API (kapi) as one table, KernelAPI.def: each function, class
// and method a kernel may call, with its parameters and what it returns.
// Type inference and the lowering look a callee up here once and switch on
// its KernelApi enumerator.
#pragma once

#include "compiler/Types.h"

#include <map>
#include <string>
#include <vector>

namespace spirjit {

enum class KernelApi {
#define KERNEL_API(id, receiver, name, parameters, required, result) id,
#include "compiler/KernelAPI.def"
};

/// What a kernel-API name is called on (KernelAPI.def explains).
enum class KernelApiReceiver {
  Module,
  Item,
  NdItem,
  Group,
  SubGroup,
  AtomicRef
};

/// What a call returns (KernelAPI.def explains).
enum class KernelApiResult {
  None,
  Int,
  Bool,
  Group,
  SubGroup,
  Mask,
  Element,
  Value,
  PrivateArray,
  AtomicRef,
};

struct KernelApiFunction {
  KernelApi id;
  KernelApiReceiver receiver;
  std::string name;
  std::vector<std::string> parameters; // as Python declares them
  size_t required;                     // leading parameters without default
  KernelApiResult result;
};

/// The qualified name of kapi's module, as callee types name its members.
inline const std::string &kernelApiModule() {
  static const std::string name = "spirjit.kernel_api";
  return name;
}

/// Is `qualifiedName` a member of kapi ("spirjit.kernel_api.X")?
bool isKernelApiName(const std::string &qualifiedName);

/// The kernel-API function a callee type names: a Function type of a kapi
/// member, or a Method of an Item, NdItem, Group or AtomicRef; nullptr for
/// any other callee and for names the table does not list.
const KernelApiFunction *findKernelApi(const Type *callee);

/// Is `id` a group algorithm of KernelAPI.def's KERNEL_API_GROUP_ALGORITHM
/// list (the scans, any_of/all_of and the sub-group functions)?
bool isGroupAlgorithm(KernelApi id);

/// kapi's IntEnums by name: member name to value.
const std::map<std::string, std::map<std::string, int>> &kernelApiEnums();

} // namespace spirjit
