#include "compiler/KernelAPI.h"

namespace spirjit {
namespace {

std::vector<std::string> splitParameters(const std::string &text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    names.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

const std::vector<KernelApiFunction> &table() {
  static const std::vector<KernelApiFunction> functions = {
#define KERNEL_API(id, receiver, name, parameters, required, result)           \
  {KernelApi::id, KernelApiReceiver::receiver,                                 \
   name,          splitParameters(parameters),                                 \
   required,      KernelApiResult::result},
#include "compiler/KernelAPI.def"
  };
  return functions;
}

const KernelApiFunction *find(KernelApiReceiver receiver,
                              const std::string &name) {
  for (const KernelApiFunction &function : table())
    if (function.receiver == receiver && function.name == name)
      return &function;
  return nullptr;
}

} // namespace

bool isKernelApiName(const std::string &qualifiedName) {
  const std::string &module = kernelApiModule();
  return qualifiedName.size() > module.size() + 1 &&
         qualifiedName.compare(0, module.size(), module) == 0 &&
         qualifiedName[module.size()] == '.';
}

const KernelApiFunction *findKernelApi(const Type *callee) {
  if (callee->kind == TypeKind::Function) {
    if (!isKernelApiName(callee->name))
      return nullptr;
    return find(KernelApiReceiver::Module,
                callee->name.substr(kernelApiModule().size() + 1));
  }
  if (callee->kind != TypeKind::Method)
    return nullptr;
  switch (callee->elements[0]->kind) {
  case TypeKind::Item:
    return find(KernelApiReceiver::Item, callee->name);
  case TypeKind::NdItem:
    return find(KernelApiReceiver::NdItem, callee->name);
  case TypeKind::Group:
    return find(types::isSubGroup(callee->elements[0])
                    ? KernelApiReceiver::SubGroup
                    : KernelApiReceiver::Group,
                callee->name);
  case TypeKind::AtomicRef:
    return find(KernelApiReceiver::AtomicRef, callee->name);
  default:
    return nullptr;
  }
}

bool isGroupAlgorithm(KernelApi id) {
  switch (id) {
#define KERNEL_API_GROUP_ALGORITHM(algorithm) case KernelApi::algorithm:
#include "compiler/KernelAPI.def"
#undef KERNEL_API_GROUP_ALGORITHM
    return true;
  default:
    return false;
  }
}

const std::map<std::string, std::map<std::string, int>> &kernelApiEnums() {
  static const std::map<std::string, std::map<std::string, int>> enums = [] {
    std::map<std::string, std::map<std::string, int>> members;
#define KERNEL_API_CONSTANT(enumName, member, value)                           \
  members[#enumName][#member] = value;
#include "compiler/KernelAPI.def"
    return members;
  }();
  return enums;
}

} // namespace spirjit
