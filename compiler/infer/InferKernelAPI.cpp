// The kernel API (KernelAPI.def): work-item queries, barriers and fences,
// group collectives, PrivateArray, AtomicRef and its methods, and kapi's
// enums.
#include "compiler/infer/Inference.h"

#include <optional>
#include <set>

namespace spirjit::infer {

namespace {

/// The memory space a kapi.AddressSpace value names: the one place where
/// kapi's numbers (OpenCL's) meet MemorySpace. CONSTANT has none: kernels
/// never see constant memory.
std::optional<MemorySpace> memorySpaceOf(int64_t value) {
  const std::map<std::string, int> &spaces =
      kernelApiEnums().at("AddressSpace");
  if (value == spaces.at("GLOBAL"))
    return MemorySpace::Global;
  if (value == spaces.at("LOCAL"))
    return MemorySpace::Local;
  if (value == spaces.at("PRIVATE"))
    return MemorySpace::Private;
  if (value == spaces.at("GENERIC"))
    return MemorySpace::Generic;
  return std::nullopt;
}

/// The type a call of `api` on `receiver` gives, for the results the table
/// fixes; Value, PrivateArray and AtomicRef depend on the arguments.
const Type *resultOf(const KernelApiFunction &api, const Type *receiver) {
  switch (api.result) {
  case KernelApiResult::None:
    return types::none();
  case KernelApiResult::Int:
    return types::weakInt();
  case KernelApiResult::Bool:
    return types::boolean();
  case KernelApiResult::Group:
    return types::group(receiver->ndim);
  case KernelApiResult::SubGroup:
    return types::subGroup(receiver->ndim);
  case KernelApiResult::Element:
    return receiver->element;
  default:
    SPIRJIT_INTERNAL_CHECK(false, "the result of kapi " + api.name +
                                      " depends on its arguments");
  }
  return nullptr;
}

} // namespace

const Type *Inference::inferKernelApiConstant(Instruction &inst,
                                              const Type *object) {
  if (!isKernelApiName(object->name))
    return nullptr;
  auto e =
      kernelApiEnums().find(object->name.substr(kernelApiModule().size() + 1));
  if (e == kernelApiEnums().end())
    return nullptr;
  auto member = e->second.find(inst.name);
  if (member == e->second.end())
    typingError(inst,
                "kapi." + e->first + " has no member '" + inst.name + "'");
  result_.constants[&inst] = ConstValue::ofInt(member->second);
  return types::weakInt();
}

const Type *
Inference::inferWorkItemMethod(Instruction &inst, const Type *callee,
                               const std::vector<const Type *> &args) {
  const Type *receiver = callee->elements[0];
  const std::string &name = callee->name;
  const KernelApiFunction *api = findKernelApi(callee);
  if (!api)
    typingError(inst, "'" + receiver->str() + "' has no method '" + name + "'");
  requireArity(inst, args, api->required, api->parameters.size(), name);
  if (!api->parameters.empty()) { // the dimension
    // As numba-dpex: a bool is no dimension, though Python would take it.
    if (args[0]->kind == TypeKind::Bool)
      typingError(inst, name + " takes an integer dimension, not bool");
    requireInteger(inst, args[0], "the dimension of " + name + "()");
    if (const ConstValue *dim = constantOf(inst.operands[1]))
      if (dim->kind == ConstValue::Kind::Int &&
          (dim->intValue < 0 || dim->intValue >= receiver->ndim))
        typingError(inst, name + "(" + std::to_string(dim->intValue) +
                              ") is out of range for a " +
                              std::to_string(receiver->ndim) +
                              "-dimensional launch");
  }
  return resultOf(*api, receiver);
}

const Type *Inference::inferKernelApiCall(Instruction &inst,
                                          const Type *callee) {
  const KernelApiFunction *api = findKernelApi(callee);
  std::string shortName = callee->name.substr(kernelApiModule().size() + 1);
  if (!api)
    unsupported(inst, "kapi." + shortName + "() is not supported in kernels");
  const std::vector<std::string> *params = &api->parameters;
  std::vector<const Instruction *> args =
      positionalArguments(inst, *params, shortName);
  result_.callArguments[&inst] = args;
  auto need = [&](size_t i) -> const Instruction * {
    if (!args[i])
      typingError(inst,
                  shortName + "() needs its '" + (*params)[i] + "' argument");
    return args[i];
  };
  if (isGroupAlgorithm(api->id))
    return inferGroupAlgorithm(inst, *api, shortName, args);
  switch (api->id) {
  case KernelApi::GroupBarrier:
    if (need(0)->type->kind != TypeKind::Group ||
        types::isSubGroup(args[0]->type))
      typingError(inst, "group_barrier() needs the work-group "
                        "(item.get_group()), got '" +
                            args[0]->type->str() + "'");
    constantInt(inst, args[1], "group_barrier's fence_scope", 2);
    return resultOf(*api, nullptr);
  case KernelApi::AtomicFence:
    constantInt(inst, need(0), "atomic_fence's memory_order", 0);
    constantInt(inst, need(1), "atomic_fence's memory_scope", 0);
    return resultOf(*api, nullptr);
  case KernelApi::GroupReduce:
  case KernelApi::GroupBroadcast: {
    if (need(0)->type->kind != TypeKind::Group ||
        types::isSubGroup(args[0]->type))
      typingError(inst, shortName +
                            "() needs the work-group "
                            "(item.get_group()), got '" +
                            args[0]->type->str() + "'");
    const Type *value = need(1)->type;
    if (!value->isNumber())
      typingError(inst, shortName + "() combines numbers, not '" +
                            value->str() + "'");
    if (api->id == KernelApi::GroupReduce) {
      checkGroupOp(inst, shortName, need(2), value);
    } else if (args[2]) {
      requireInteger(inst, args[2]->type, "group_broadcast's local_id");
    }
    result_.usesGroupScratch = true;
    return types::materialize(value);
  }
  case KernelApi::PrivateArray: {
    std::vector<int64_t> shape;
    const Instruction *shapeInst = need(0);
    if (shapeInst->type->kind == TypeKind::Tuple)
      for (const Instruction *e : shapeInst->operands)
        shape.push_back(constantInt(inst, e, "a PrivateArray extent", 0));
    else
      shape.push_back(constantInt(inst, shapeInst, "a PrivateArray extent", 0));
    if (shapeInst->type->kind == TypeKind::Tuple &&
        shapeInst->opcode != Opcode::BuildTuple)
      typingError(inst, "a PrivateArray's shape must be a constant tuple");
    for (int64_t extent : shape)
      if (extent <= 0)
        typingError(inst, "a PrivateArray's extents must be positive");
    const Type *dtype = need(1)->type;
    if (dtype->kind != TypeKind::DTypeClass)
      typingError(inst, "a PrivateArray's dtype must be a NumPy type such as "
                        "np.float32, not '" +
                            dtype->str() + "'");
    constantInt(inst, args[2], "PrivateArray's fill_zeros", 0);
    return types::array(dtype->element, static_cast<int>(shape.size()), 'C',
                        MemorySpace::Private);
  }
  case KernelApi::AtomicRef:
    return inferAtomicRef(inst, *api, args);
  default:
    SPIRJIT_INTERNAL_CHECK(false, "kapi." + api->name + " is no function");
  }
  return nullptr;
}

void Inference::checkGroupOp(Instruction &inst, const std::string &function,
                             const Instruction *opInst, const Type *value) {
  const Type *op = opInst->type;
  static const std::set<std::string> arithmetic = {
      "operator.add", "operator.mul", "min",    "max",
      "op:+",         "op:*",         "op:min", "op:max"};
  static const std::set<std::string> bitwise = {
      "operator.and_", "operator.or_", "operator.xor", "op:&", "op:|", "op:^"};
  bool known = op->kind == TypeKind::Function &&
               (arithmetic.count(op->name) || bitwise.count(op->name));
  if (!known)
    typingError(inst, function +
                          "'s op must be '+', '*', 'min', 'max', '&', '|' "
                          "or '^' (or operator.add, operator.mul, min, max, "
                          "operator.and_, operator.or_, operator.xor)");
  const Type *v = types::materialize(value);
  if (bitwise.count(op->name) && v->kind != TypeKind::Int &&
      v->kind != TypeKind::Bool)
    typingError(inst, function + "'s op '" +
                          op->name.substr(op->name.find_first_of(":.") + 1) +
                          "' combines integers or bools, not '" + v->str() +
                          "'");
  bool minMax = op->name == "min" || op->name == "max" ||
                op->name == "op:min" || op->name == "op:max";
  if (minMax && v->kind == TypeKind::Complex &&
      function.find("scan") != std::string::npos)
    typingError(inst, function + " orders no complex numbers; scan the "
                                 "real parts");
}

const Type *
Inference::inferGroupAlgorithm(Instruction &inst, const KernelApiFunction &api,
                               const std::string &name,
                               const std::vector<const Instruction *> &args) {
  auto need = [&](size_t i) -> const Instruction * {
    if (!args[i])
      typingError(inst, name + "() needs its '" + api.parameters[i] +
                            "' argument");
    return args[i];
  };
  bool subGroupOnly = api.parameters[0] == "sg";
  bool groupOnly = api.id == KernelApi::GroupInclusiveScan ||
                   api.id == KernelApi::GroupExclusiveScan;
  const Type *g = need(0)->type;
  if (g->kind != TypeKind::Group ||
      (subGroupOnly && !types::isSubGroup(g)) ||
      (groupOnly && types::isSubGroup(g)))
    typingError(inst, name + "() needs " +
                          (subGroupOnly ? std::string("the sub-group "
                                                      "(item.get_sub_group())")
                           : groupOnly
                               ? std::string("the work-group "
                                             "(item.get_group())")
                               : std::string("a work-group or sub-group")) +
                          ", got '" + g->str() + "'");
  result_.usesGroupScratch = true;
  if (api.id == KernelApi::SubGroupBarrier)
    return types::none();
  const Type *value = need(1)->type;
  if (api.id == KernelApi::AnyOf || api.id == KernelApi::AllOf ||
      api.id == KernelApi::SubGroupBallot) {
    if (!value->isNumber())
      typingError(inst, name + "() takes a predicate (a bool or number), "
                               "not '" +
                            value->str() + "'");
    return api.id == KernelApi::SubGroupBallot ? types::integer(32, false)
                                               : types::boolean();
  }
  if (!value->isNumber())
    typingError(inst, name + "() combines numbers, not '" + value->str() +
                          "'");
  switch (api.id) {
  case KernelApi::Shuffle:
  case KernelApi::ShuffleXor:
  case KernelApi::ShuffleDown:
  case KernelApi::ShuffleUp:
    requireInteger(inst, need(2)->type,
                   name + "'s " + api.parameters[2]);
    break;
  case KernelApi::SubGroupBroadcast:
    if (args[2])
      requireInteger(inst, args[2]->type, name + "'s lane");
    break;
  default:
    checkGroupOp(inst, name, need(2), value);
  }
  return types::materialize(value);
}

const Type *
Inference::inferAtomicRef(Instruction &inst, const KernelApiFunction &api,
                          const std::vector<const Instruction *> &args) {
  // AtomicRef(ref, index=0, memory_order, memory_scope, address_space)
  auto need = [&](size_t i) -> const Instruction * {
    if (!args[i])
      typingError(inst,
                  "AtomicRef() needs its '" + api.parameters[i] + "' argument");
    return args[i];
  };
  const Type *ref = need(0)->type;
  if (ref->kind != TypeKind::Array)
    typingError(inst, "AtomicRef needs an array, not '" + ref->str() + "'");
  const Type *element = ref->element;
  bool allowed = (element->kind == TypeKind::Int &&
                  (element->bits == 32 || element->bits == 64)) ||
                 element->kind == TypeKind::Float;
  if (!allowed)
    typingError(inst, "AtomicRef works on int32, uint32, int64, uint64, "
                      "float32 and float64 elements, not " +
                          element->str());
  if (element->bits == 64 && !specializations_.hasAtomic64)
    typingError(inst, "the device has no 64-bit atomics; AtomicRef of " +
                          element->str() + " needs them");
  if (args[1]) {
    const Type *index = args[1]->type;
    if (index->kind == TypeKind::Tuple) {
      if (static_cast<int>(index->elements.size()) != ref->ndim)
        typingError(inst, "AtomicRef of a " + std::to_string(ref->ndim) +
                              "-dimensional array needs " +
                              std::to_string(ref->ndim) + " indices");
      for (const Type *e : index->elements)
        requireInteger(inst, e, "an AtomicRef index");
    } else {
      requireInteger(inst, index, "an AtomicRef index");
      if (ref->ndim != 1)
        typingError(inst, "AtomicRef of a " + std::to_string(ref->ndim) +
                              "-dimensional array takes a tuple index");
    }
  }
  constantInt(inst, args[2], "AtomicRef's memory_order", 0);
  constantInt(inst, args[3], "AtomicRef's memory_scope", 3);
  if (args[4]) {
    std::optional<MemorySpace> space = memorySpaceOf(
        constantInt(inst, args[4], "AtomicRef's address_space", 0));
    if (space != ref->memorySpace)
      typingError(
          inst,
          std::string("AtomicRef's address_space says ") +
              (space == MemorySpace::Local    ? "LOCAL"
               : space == MemorySpace::Global ? "GLOBAL"
                                              : "another space") +
              " but the array is in " +
              (ref->memorySpace == MemorySpace::Local ? "local" : "global") +
              " memory; leave address_space out or make it "
              "match");
  }
  return types::atomicRef(element, ref->memorySpace);
}

const Type *Inference::inferAtomicMethod(Instruction &inst,
                                         const Type *callee) {
  const std::string &name = callee->name;
  const Type *element = callee->elements[0]->element;
  const KernelApiFunction *api = findKernelApi(callee);
  std::vector<const Instruction *> args;
  if (api && api->id == KernelApi::AtomicCompareExchange) {
    args = positionalArguments(inst, api->parameters, name);
    result_.callArguments[&inst] = args;
    if (!args[0] || !args[1])
      typingError(inst, "compare_exchange() needs expected_ref and desired");
    if (args[0]->type->kind != TypeKind::Array ||
        args[0]->type->element != element)
      typingError(inst, "compare_exchange's expected_ref must be an array of " +
                            element->str() + ", not '" + args[0]->type->str() +
                            "'");
    if (args[2])
      requireInteger(inst, args[2]->type, "compare_exchange's expected_idx");
  } else {
    if (!inst.name.empty())
      unsupported(inst, "keyword arguments to AtomicRef." + name + "()");
    for (size_t i = 1; i < inst.operands.size(); ++i)
      args.push_back(inst.operands[i]);
  }
  auto value = [&](size_t i) {
    if (args.size() <= i || !args[i])
      typingError(inst, "AtomicRef." + name + "() needs a value");
    const Type *t = args[i]->type;
    if (!t->isNumber())
      typingError(inst, "AtomicRef." + name + "() needs a number");
    // A Python literal takes the element's type; a typed value must match.
    if (!t->isWeak() && t != element)
      typingError(inst, "AtomicRef." + name + "() of " + element->str() +
                            " got a " + t->str() + " value; convert it (e.g. " +
                            element->str() +
                            "(x)) so no precision is lost silently");
    if (t->kind == TypeKind::WeakFloat && element->kind == TypeKind::Int)
      typingError(inst, "AtomicRef." + name + "() of " + element->str() +
                            " got a float literal");
  };
  if (!api)
    typingError(inst, "AtomicRef has no method '" + name + "'");
  switch (api->id) {
  case KernelApi::AtomicFetchAdd:
  case KernelApi::AtomicFetchSub:
  case KernelApi::AtomicFetchMin:
  case KernelApi::AtomicFetchMax:
  case KernelApi::AtomicFetchAnd:
  case KernelApi::AtomicFetchOr:
  case KernelApi::AtomicFetchXor:
  case KernelApi::AtomicExchange: {
    if (args.size() != 1)
      typingError(inst, "AtomicRef." + name + "() takes one value");
    value(0);
    bool bitwise = api->id == KernelApi::AtomicFetchAnd ||
                   api->id == KernelApi::AtomicFetchOr ||
                   api->id == KernelApi::AtomicFetchXor;
    if (bitwise && element->kind == TypeKind::Float)
      typingError(inst, "AtomicRef." + name +
                            "() needs integers; the "
                            "referenced array holds " +
                            element->str());
    return resultOf(*api, callee->elements[0]);
  }
  case KernelApi::AtomicLoad:
    if (!args.empty())
      typingError(inst, "AtomicRef.load() takes no arguments");
    return resultOf(*api, callee->elements[0]);
  case KernelApi::AtomicStore:
    if (args.size() != 1)
      typingError(inst, "AtomicRef.store() takes one value");
    value(0);
    return resultOf(*api, callee->elements[0]);
  case KernelApi::AtomicCompareExchange:
    value(1);
    return resultOf(*api, callee->elements[0]);
  default:
    SPIRJIT_INTERNAL_CHECK(false, "AtomicRef." + name + " is no method");
  }
  return nullptr;
}

} // namespace spirjit::infer
