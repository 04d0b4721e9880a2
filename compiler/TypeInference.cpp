#include "compiler/TypeInference.h"

#include "compiler/MathFunctions.h"
#include "frontend/BuildPyIR.h"
#include "frontend/Bytecode.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"

#include <stdexcept>

#include <cmath>
#include <set>

namespace spirjit {

const ConstValue *constantOf(const TypedFunction &typed,
                             const ir::Instruction *inst) {
  if (!inst)
    return nullptr;
  if (inst->opcode == ir::Opcode::Const)
    return &inst->constant;
  auto it = typed.constants.find(inst);
  return it == typed.constants.end() ? nullptr : &it->second;
}

namespace {

using ir::Instruction;
using ir::Opcode;


/// kapi's IntEnums, compile-time constants in kernels.
const std::map<std::string, std::map<std::string, int>> &kernelApiEnums() {
  static const std::map<std::string, std::map<std::string, int>> enums = {
      {"MemoryOrder",
       {{"RELAXED", 0}, {"ACQUIRE", 1}, {"RELEASE", 3}, {"ACQ_REL", 4},
        {"SEQ_CST", 5}}},
      {"MemoryScope",
       {{"WORK_ITEM", 0}, {"SUB_GROUP", 1}, {"WORK_GROUP", 2}, {"DEVICE", 3},
        {"SYSTEM", 4}}},
      {"AddressSpace",
       {{"PRIVATE", 0}, {"GLOBAL", 1}, {"CONSTANT", 2}, {"LOCAL", 3},
        {"GENERIC", 4}}}};
  return enums;
}

/// Parameter names of the kapi functions that take keywords.
const std::vector<std::string> *kernelApiParameters(const std::string &name) {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"spirjit.kernel_api.PrivateArray", {"shape", "dtype", "fill_zeros"}},
      {"spirjit.kernel_api.AtomicRef",
       {"ref", "index", "memory_order", "memory_scope", "address_space"}},
      {"spirjit.kernel_api.group_barrier", {"group", "fence_scope"}},
      {"spirjit.kernel_api.atomic_fence", {"memory_order", "memory_scope"}},
      {"spirjit.kernel_api.group_reduce", {"group", "value", "op"}},
      {"spirjit.kernel_api.group_broadcast", {"group", "value", "local_id"}},
      {"compare_exchange", {"expected_ref", "desired", "expected_idx"}},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

/// The type of the real or imaginary part of a number of type `t`.
const Type *complexPart(const Type *t) {
  switch (t->kind) {
  case TypeKind::Complex:
    return types::floating(t->bits);
  case TypeKind::WeakComplex:
    return types::weakFloat();
  default:
    return t;
  }
}

/// The result type of a float math function of an argument of type `a`:
/// float32 stays float32; Python numbers give Python floats from `math` and
/// float64 from NumPy; NumPy gives small integers float32 as it does.
const Type *mathResultType(bool isMath, const Type *a) {
  switch (a->kind) {
  case TypeKind::Float:
    return a;
  case TypeKind::WeakFloat:
  case TypeKind::WeakInt:
    return isMath ? types::weakFloat() : types::floating(64);
  default:
    return !isMath && a->bits > 0 && a->bits <= 16 ? types::floating(32)
                                                   : types::floating(64);
  }
}

class Inference {
public:
  Inference(const FunctionDescription &desc, TypedFunction &result,
            Specializations &specializations)
      : desc_(desc), result_(result), specializations_(specializations) {}

  void run();

private:
  [[noreturn]] void typingError(const Instruction &inst,
                                const std::string &message) {
    throw UserError(UserErrorKind::Typing, desc_.filename, inst.line, message);
  }
  [[noreturn]] void unsupported(const Instruction &inst,
                                const std::string &message) {
    throw UserError(UserErrorKind::UnsupportedFeature, desc_.filename,
                    inst.line, message);
  }

  const Type *typeOfValue(const Instruction &inst, const GlobalValue &value,
                          const std::string &what);
  const Type *constantType(const ConstValue &value);
  const Type *infer(Instruction &inst);
  const Type *inferBinary(Instruction &inst, const Type *a, const Type *b);
  const Type *inferGetAttr(Instruction &inst, const Type *object);
  const Type *inferCall(Instruction &inst);
  const Type *inferIndex(Instruction &inst, const Type *array,
                         const Instruction &index);
  void requireInteger(const Instruction &inst, const Type *t,
                      const std::string &what) {
    if (t->kind != TypeKind::Int && t->kind != TypeKind::WeakInt &&
        t->kind != TypeKind::Bool)
      typingError(inst, what + " must be an integer, not " + t->str());
  }

  const Type *inferDeviceCall(Instruction &inst, const std::string &key,
                              std::vector<const Type *> args);
  const Type *inferKernelApiCall(Instruction &inst, const std::string &name);
  const Type *inferAtomicMethod(Instruction &inst, const Type *atomic,
                                const std::string &name);
  std::vector<const Instruction *>
  positionalArguments(Instruction &inst, const std::vector<std::string> &params,
                      const std::string &function);
  const ConstValue *constantOf(const Instruction *inst) const;
  int64_t constantInt(const Instruction &at, const Instruction *value,
                      const std::string &what, int64_t fallback);
  const Type *inferComplexMath(Instruction &inst, const std::string &name,
                               const std::vector<const Type *> &args);

  const FunctionDescription &desc_;
  TypedFunction &result_;
  Specializations &specializations_;
  const Type *returnType_ = nullptr;
};

const Type *Inference::constantType(const ConstValue &value) {
  switch (value.kind) {
  case ConstValue::Kind::None:
    return types::none();
  case ConstValue::Kind::Bool:
    return types::boolean();
  case ConstValue::Kind::Int:
    return types::weakInt();
  case ConstValue::Kind::Float:
    return types::weakFloat();
  case ConstValue::Kind::Complex:
    return types::weakComplex();
  case ConstValue::Kind::Str: // only group_reduce's op (see BuildPyIR)
    return types::function("op:" + value.text);
  default:
    return nullptr;
  }
}

const Type *Inference::typeOfValue(const Instruction &inst,
                                   const GlobalValue &value,
                                   const std::string &what) {
  switch (value.kind) {
  case GlobalValue::Kind::Number: {
    result_.constants[&inst] = value.value;
    if (!value.dtype.empty()) {
      const Type *t = types::fromDTypeName(value.dtype);
      if (!t)
        typingError(inst, what + " has unsupported dtype " + value.dtype);
      return t;
    }
    return constantType(value.value);
  }
  case GlobalValue::Kind::Module:
    return types::module(value.name);
  case GlobalValue::Kind::Builtin:
    return types::function(value.name);
  case GlobalValue::Kind::DeviceFunction:
    return types::function("device:" + value.name);
  case GlobalValue::Kind::Object: {
    const std::string prefix = "numpy.";
    if (value.name.compare(0, prefix.size(), prefix) == 0)
      if (const Type *dtype = types::fromDTypeName(value.name.substr(6)))
        return types::dtypeClass(dtype);
    return types::function(value.name);
  }
  case GlobalValue::Kind::Unknown:
    break;
  }
  unsupported(inst, what + " is a Python '" + value.name +
                        "' object, which kernels cannot use; kernels see "
                        "numbers, modules such as math and numpy, and "
                        "spirjit functions");
}

const Type *Inference::inferBinary(Instruction &inst, const Type *a,
                                   const Type *b) {
  auto op = static_cast<ir::BinaryOperator>(inst.index);
  std::string opText = ir::binaryOperatorText(op);
  if (!a->isNumber() || !b->isNumber())
    typingError(inst, "unsupported operand types for " + opText + ": '" +
                          a->str() + "' and '" + b->str() + "'");
  if (op == ir::BinaryOperator::MatMul)
    unsupported(inst, "the '@' operator is not supported in kernels");
  const Type *common = types::promote(a, b);
  SPIRJIT_INTERNAL_CHECK(common, "no promotion of two numbers");
  switch (op) {
  case ir::BinaryOperator::TrueDiv:
    if (common->kind == TypeKind::WeakInt)
      return types::weakFloat();
    if (common->kind == TypeKind::Int || common->kind == TypeKind::Bool)
      return types::floating(64);
    return common;
  case ir::BinaryOperator::LShift:
  case ir::BinaryOperator::RShift:
  case ir::BinaryOperator::BitAnd:
  case ir::BinaryOperator::BitOr:
  case ir::BinaryOperator::BitXor: {
    bool shift = op == ir::BinaryOperator::LShift ||
                 op == ir::BinaryOperator::RShift;
    bool integral = common->kind == TypeKind::Int ||
                    common->kind == TypeKind::WeakInt ||
                    (common->kind == TypeKind::Bool && !shift);
    if (!integral)
      typingError(inst, "unsupported operand types for " + opText + ": '" +
                            a->str() + "' and '" + b->str() +
                            "' (bitwise operators need integers)");
    if (common->kind == TypeKind::Bool && shift)
      return types::int64();
    return common;
  }
  default:
    if ((common->kind == TypeKind::Complex ||
         common->kind == TypeKind::WeakComplex) &&
        (op == ir::BinaryOperator::FloorDiv || op == ir::BinaryOperator::Mod))
      typingError(inst, "unsupported operand types for " + opText + ": '" +
                            a->str() + "' and '" + b->str() +
                            "' (complex numbers have no floor division)");
    if (common->kind == TypeKind::Bool) {
      // NumPy: bool + bool is logical or, bool * bool logical and; a bool
      // minus a bool is an error; the rest compute in int8.
      if (op == ir::BinaryOperator::Add || op == ir::BinaryOperator::Mul)
        return types::boolean();
      if (op == ir::BinaryOperator::Sub)
        typingError(inst, "subtracting booleans is not supported (NumPy "
                          "forbids it); use the ^ operator or logical_xor");
      return types::integer(8, true);
    }
    return common;
  }
}

const Type *Inference::inferGetAttr(Instruction &inst, const Type *object) {
  const std::string &name = inst.name;
  if (object->isNumber() && (name == "real" || name == "imag"))
    return complexPart(object);
  if (object->isNumber() && name == "conjugate")
    return types::method(object, name);
  switch (object->kind) {
  case TypeKind::Module: {
    const std::string &module = object->name;
    if (module == "math" || module == "numpy") {
      static const std::map<std::string, double> constants = {
          {"pi", M_PI}, {"e", M_E}, {"tau", 2 * M_PI},
          {"inf", INFINITY}, {"nan", NAN}};
      auto c = constants.find(name);
      if (c != constants.end()) {
        result_.constants[&inst] = ConstValue::ofFloat(c->second);
        return types::weakFloat();
      }
      if (module == "numpy")
        if (const Type *dtype = types::fromDTypeName(name))
          return types::dtypeClass(dtype);
    }
    return types::function(module + "." + name);
  }
  case TypeKind::Function: {
    const std::string prefix = "spirjit.kernel_api.";
    if (object->name.compare(0, prefix.size(), prefix) == 0) {
      auto e = kernelApiEnums().find(object->name.substr(prefix.size()));
      if (e != kernelApiEnums().end()) {
        auto member = e->second.find(name);
        if (member == e->second.end())
          typingError(inst, "kapi." + e->first + " has no member '" + name +
                                "'");
        result_.constants[&inst] = ConstValue::ofInt(member->second);
        return types::weakInt();
      }
    }
    break;
  }
  case TypeKind::NdItem:
  case TypeKind::Group:
    if (name == "dimensions") {
      result_.constants[&inst] = ConstValue::ofInt(object->ndim);
      return types::weakInt();
    }
    return types::method(object, name);
  case TypeKind::AtomicRef:
    return types::method(object, name);
  case TypeKind::Item:
    if (name == "get_id" || name == "get_range" || name == "get_linear_id" ||
        name == "get_linear_range")
      return types::method(object, name);
    if (name == "dimensions") {
      result_.constants[&inst] = ConstValue::ofInt(object->ndim);
      return types::weakInt();
    }
    break;
  case TypeKind::Array:
    if (name == "shape")
      return types::tuple(
          std::vector<const Type *>(object->ndim, types::weakInt()));
    if (name == "ndim") {
      result_.constants[&inst] = ConstValue::ofInt(object->ndim);
      return types::weakInt();
    }
    if (name == "size")
      return types::weakInt();
    if (name == "dtype")
      return types::dtypeClass(object->element);
    break;
  case TypeKind::DTypeClass:
    if (name == "type")
      return object;
    break;
  default:
    break;
  }
  typingError(inst, "'" + object->str() + "' has no attribute '" + name +
                        "' usable in kernels");
}

const Type *Inference::inferIndex(Instruction &inst, const Type *array,
                                  const Instruction &index) {
  const Type *it = index.type;
  if (it->kind == TypeKind::Tuple) {
    if (static_cast<int>(it->elements.size()) != array->ndim)
      typingError(inst, "cannot index a " + std::to_string(array->ndim) +
                            "-dimensional array with " +
                            std::to_string(it->elements.size()) +
                            " indices (slices are not supported yet)");
    for (const Type *e : it->elements)
      requireInteger(inst, e, "an array index");
    return array->element;
  }
  requireInteger(inst, it, "an array index");
  if (array->ndim == 1)
    return array->element;
  // a[i] of an N-D array is the (N-1)-D view of row i.
  char layout = array->layout == 'C' ? 'C' : 'A';
  return types::array(array->element, array->ndim - 1, layout);
}

std::vector<const Instruction *>
Inference::positionalArguments(Instruction &inst,
                               const std::vector<std::string> &params,
                               const std::string &function) {
  std::vector<std::string> keywords;
  for (size_t start = 0; !inst.name.empty() && start <= inst.name.size();) {
    size_t comma = inst.name.find(',', start);
    if (comma == std::string::npos)
      comma = inst.name.size();
    keywords.push_back(inst.name.substr(start, comma - start));
    start = comma + 1;
  }
  size_t given = inst.operands.size() - 1;
  size_t positional = given - keywords.size();
  if (positional > params.size())
    typingError(inst, function + "() takes at most " +
                          std::to_string(params.size()) + " arguments, got " +
                          std::to_string(given));
  std::vector<const Instruction *> out(params.size(), nullptr);
  for (size_t i = 0; i < positional; ++i)
    out[i] = inst.operands[i + 1];
  for (size_t k = 0; k < keywords.size(); ++k) {
    auto it = std::find(params.begin(), params.end(), keywords[k]);
    if (it == params.end())
      typingError(inst, function + "() got an unexpected keyword argument '" +
                            keywords[k] + "'");
    size_t index = static_cast<size_t>(it - params.begin());
    if (out[index])
      typingError(inst, function + "() got multiple values for '" +
                            keywords[k] + "'");
    out[index] = inst.operands[positional + k + 1];
  }
  return out;
}

const ConstValue *Inference::constantOf(const Instruction *inst) const {
  return spirjit::constantOf(result_, inst);
}

int64_t Inference::constantInt(const Instruction &at, const Instruction *value,
                               const std::string &what, int64_t fallback) {
  if (!value)
    return fallback;
  const ConstValue *c = constantOf(value);
  if (!c || (c->kind != ConstValue::Kind::Int &&
             c->kind != ConstValue::Kind::Bool))
    typingError(at, what + " must be a compile-time constant integer");
  return c->kind == ConstValue::Kind::Bool ? c->boolValue : c->intValue;
}

const Type *Inference::inferKernelApiCall(Instruction &inst,
                                          const std::string &name) {
  const std::vector<std::string> *params = kernelApiParameters(name);
  std::string shortName = name.substr(name.rfind('.') + 1);
  if (!params)
    unsupported(inst, "kapi." + shortName + "() is not supported in kernels");
  std::vector<const Instruction *> args =
      positionalArguments(inst, *params, shortName);
  result_.callArguments[&inst] = args;
  auto need = [&](size_t i) -> const Instruction * {
    if (!args[i])
      typingError(inst, shortName + "() needs its '" + (*params)[i] +
                            "' argument");
    return args[i];
  };
  if (shortName == "group_barrier") {
    if (need(0)->type->kind != TypeKind::Group)
      typingError(inst, "group_barrier() needs the work-group "
                        "(item.get_group()), got '" +
                            args[0]->type->str() + "'");
    constantInt(inst, args[1], "group_barrier's fence_scope", 2);
    return types::none();
  }
  if (shortName == "atomic_fence") {
    constantInt(inst, need(0), "atomic_fence's memory_order", 0);
    constantInt(inst, need(1), "atomic_fence's memory_scope", 0);
    return types::none();
  }
  if (shortName == "group_reduce" || shortName == "group_broadcast") {
    if (need(0)->type->kind != TypeKind::Group)
      typingError(inst, shortName + "() needs the work-group "
                                    "(item.get_group()), got '" +
                            args[0]->type->str() + "'");
    const Type *value = need(1)->type;
    if (!value->isNumber() || value->kind == TypeKind::Complex ||
        value->kind == TypeKind::WeakComplex)
      typingError(inst, shortName + "() combines real numbers, not '" +
                            value->str() + "'");
    if (shortName == "group_reduce") {
      const Type *op = need(2)->type;
      static const std::set<std::string> ops = {
          "operator.add", "operator.mul", "min",   "max",
          "op:+",         "op:*",         "op:min", "op:max"};
      if (op->kind != TypeKind::Function || !ops.count(op->name))
        typingError(inst, "group_reduce's op must be '+', '*', 'min' or "
                          "'max' (or operator.add, operator.mul, min, max)");
    } else if (args[2]) {
      requireInteger(inst, args[2]->type, "group_broadcast's local_id");
    }
    result_.usesGroupScratch = true;
    return types::materialize(value);
  }
  if (shortName == "PrivateArray") {
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
                        0);
  }
  // AtomicRef(ref, index=0, memory_order, memory_scope, address_space)
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
  int64_t space = constantInt(inst, args[4], "AtomicRef's address_space",
                              ref->addressSpace);
  if (args[4] && space != ref->addressSpace)
    typingError(inst, std::string("AtomicRef's address_space says ") +
                          (space == 3 ? "LOCAL" : space == 1 ? "GLOBAL" : "another space") +
                          " but the array is in " +
                          (ref->addressSpace == 3 ? "local" : "global") +
                          " memory; leave address_space out or make it match");
  return types::atomicRef(element, ref->addressSpace);
}

const Type *Inference::inferAtomicMethod(Instruction &inst,
                                         const Type *atomic,
                                         const std::string &name) {
  const Type *element = atomic->element;
  std::vector<const Instruction *> args;
  if (name == "compare_exchange") {
    args = positionalArguments(inst, *kernelApiParameters("compare_exchange"),
                               name);
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
                            " got a " + t->str() +
                            " value; convert it (e.g. " + element->str() +
                            "(x)) so no precision is lost silently");
    if (t->kind == TypeKind::WeakFloat && element->kind == TypeKind::Int)
      typingError(inst, "AtomicRef." + name + "() of " + element->str() +
                            " got a float literal");
  };
  static const std::set<std::string> rmw = {"fetch_add", "fetch_sub",
                                            "fetch_min", "fetch_max",
                                            "fetch_and", "fetch_or",
                                            "fetch_xor", "exchange"};
  if (rmw.count(name)) {
    if (args.size() != 1)
      typingError(inst, "AtomicRef." + name + "() takes one value");
    value(0);
    bool bitwise = name == "fetch_and" || name == "fetch_or" ||
                   name == "fetch_xor";
    if (bitwise && element->kind == TypeKind::Float)
      typingError(inst, "AtomicRef." + name + "() needs integers; the "
                        "referenced array holds " + element->str());
    return element;
  }
  if (name == "load") {
    if (!args.empty())
      typingError(inst, "AtomicRef.load() takes no arguments");
    return element;
  }
  if (name == "store") {
    if (args.size() != 1)
      typingError(inst, "AtomicRef.store() takes one value");
    value(0);
    return types::none();
  }
  if (name == "compare_exchange") {
    value(1);
    return types::boolean();
  }
  typingError(inst, "AtomicRef has no method '" + name + "'");
}

const Type *Inference::inferCall(Instruction &inst) {
  const Type *callee = inst.operands[0]->type;
  if (callee->kind == TypeKind::Function &&
      callee->name.compare(0, 19, "spirjit.kernel_api.") == 0)
    return inferKernelApiCall(inst, callee->name);
  if (callee->kind == TypeKind::Method &&
      callee->elements[0]->kind == TypeKind::AtomicRef)
    return inferAtomicMethod(inst, callee->elements[0], callee->name);
  if (!inst.name.empty())
    unsupported(inst, "keyword arguments are supported for kapi functions "
                      "only; pass the arguments by position");
  std::vector<const Type *> args;
  for (size_t i = 1; i < inst.operands.size(); ++i)
    args.push_back(inst.operands[i]->type);
  auto arity = [&](size_t lo, size_t hi, const std::string &name) {
    if (args.size() < lo || args.size() > hi)
      typingError(inst, name + "() takes " +
                            (lo == hi ? std::to_string(lo)
                                      : std::to_string(lo) + " to " +
                                            std::to_string(hi)) +
                            " arguments, got " + std::to_string(args.size()));
  };
  auto requireNumbers = [&](const std::string &name) {
    for (const Type *t : args)
      if (!t->isNumber())
        typingError(inst, name + "() needs numbers, got '" + t->str() + "'");
  };

  if (callee->kind == TypeKind::Method &&
      (callee->elements[0]->kind == TypeKind::NdItem ||
       callee->elements[0]->kind == TypeKind::Group)) {
    const Type *receiver = callee->elements[0];
    const std::string &name = callee->name;
    static const std::set<std::string> perDimension = {
        "get_global_id", "get_local_id", "get_global_range",
        "get_local_range", "get_group_id", "get_group_range"};
    static const std::set<std::string> ndItemNoArgs = {
        "get_global_linear_id", "get_local_linear_id",
        "get_global_linear_range", "get_local_linear_range", "get_group"};
    static const std::set<std::string> groupNoArgs = {
        "get_group_linear_id", "get_group_linear_range",
        "get_local_linear_range"};
    bool isNdItem = receiver->kind == TypeKind::NdItem;
    bool known =
        isNdItem ? (perDimension.count(name) &&
                    name.compare(0, 10, "get_group_") != 0) ||
                       ndItemNoArgs.count(name)
                 : name == "get_group_id" || name == "get_group_range" ||
                       name == "get_local_range" || groupNoArgs.count(name);
    if (!known)
      typingError(inst, "'" + receiver->str() + "' has no method '" + name +
                            "'");
    if (perDimension.count(name)) {
      arity(1, 1, name);
      requireInteger(inst, args[0], "the dimension of " + name + "()");
      if (const ConstValue *dim = constantOf(inst.operands[1]))
        if (dim->kind == ConstValue::Kind::Int &&
            (dim->intValue < 0 || dim->intValue >= receiver->ndim))
          typingError(inst, name + "(" + std::to_string(dim->intValue) +
                                ") is out of range for a " +
                                std::to_string(receiver->ndim) +
                                "-dimensional launch");
      return types::weakInt();
    }
    arity(0, 0, name);
    if (name == "get_group")
      return types::group(receiver->ndim);
    return types::weakInt();
  }
  if (callee->kind == TypeKind::Method &&
      callee->elements[0]->kind == TypeKind::Item) {
    const std::string &name = callee->name;
    if (name == "get_id" || name == "get_range") {
      arity(1, 1, name);
      requireInteger(inst, args[0], "the dimension of " + name + "()");
      const ConstValue *dim = constantOf(inst.operands[1]);
      int ndim = callee->elements[0]->ndim;
      if (dim && dim->kind == ConstValue::Kind::Int &&
          (dim->intValue < 0 || dim->intValue >= ndim))
        typingError(inst, name + "(" + std::to_string(dim->intValue) +
                              ") is out of range for a " +
                              std::to_string(ndim) +
                              "-dimensional launch");
      return types::weakInt();
    }
    arity(0, 0, name);
    return types::weakInt();
  }
  if (callee->kind == TypeKind::Method && callee->name == "conjugate") {
    arity(0, 0, "conjugate");
    return callee->elements[0];
  }
  if (callee->kind == TypeKind::DTypeClass) {
    arity(1, 1, callee->element->str());
    requireNumbers(callee->element->str());
    return callee->element;
  }
  if (callee->kind != TypeKind::Function)
    typingError(inst, "'" + callee->str() + "' is not callable in a kernel");

  const std::string &name = callee->name;
  if (name.compare(0, 7, "device:") == 0)
    return inferDeviceCall(inst, name.substr(7), args);
  if (name == "range") {
    arity(1, 3, "range");
    for (const Type *t : args)
      requireInteger(inst, t, "a range() argument");
    return types::range();
  }
  if (name == "abs") {
    arity(1, 1, name);
    requireNumbers(name);
    if (args[0]->kind == TypeKind::Complex ||
        args[0]->kind == TypeKind::WeakComplex)
      return complexPart(args[0]); // |z|
    return args[0]->kind == TypeKind::Bool ? types::weakInt() : args[0];
  }
  if (name == "min" || name == "max") {
    if (args.size() < 2)
      typingError(inst, name + "() needs at least two numbers in a kernel");
    requireNumbers(name);
    for (const Type *t : args)
      if (t->kind == TypeKind::Complex || t->kind == TypeKind::WeakComplex)
        typingError(inst, name + "() cannot order complex numbers");
    const Type *t = args[0];
    for (const Type *a : args)
      t = types::promote(t, a);
    return t;
  }
  if (name == "int" || name == "float" || name == "bool") {
    arity(1, 1, name);
    requireNumbers(name);
    return name == "int"     ? types::weakInt()
           : name == "float" ? types::weakFloat()
                             : types::boolean();
  }
  if (name == "len") {
    arity(1, 1, name);
    if (args[0]->kind == TypeKind::Array || args[0]->kind == TypeKind::Tuple)
      return types::weakInt();
    typingError(inst, "len() needs an array or a tuple, got '" +
                          args[0]->str() + "'");
  }
  if (name == "complex") {
    arity(1, 2, name);
    requireNumbers(name);
    const Type *t = types::weakComplex(); // a Python complex
    for (const Type *a : args) // complex(z) keeps a typed z's precision
      if (a->kind == TypeKind::Complex)
        t = types::promote(t, a);
    return t;
  }
  if (name.compare(0, 6, "cmath.") == 0)
    return inferComplexMath(inst, name.substr(6), args);
  if (name == "round") {
    arity(1, 2, name);
    requireNumbers(name);
    if (args.size() == 2) {
      requireInteger(inst, args[1], "round()'s number of digits");
      return args[0]->kind == TypeKind::Float ? args[0] : types::weakFloat();
    }
    return types::weakInt(); // round(x) is a Python int
  }
  if (name == "numpy.abs" || name == "numpy.absolute") {
    arity(1, 1, name);
    requireNumbers(name);
    return types::materialize(args[0]->kind == TypeKind::Bool
                                  ? types::boolean()
                                  : complexPart(args[0]));
  }
  if (const MathFunction *math = findMathFunction(name)) {
    bool isMath = name.compare(0, 5, "math.") == 0;
    bool logWithBase = isMath && std::string(math->name) == "log";
    arity(math->arity, logWithBase ? 2 : math->arity, name);
    requireNumbers(name);
    for (const Type *a : args)
      if (a->kind == TypeKind::Complex || a->kind == TypeKind::WeakComplex)
        unsupported(inst, name + "() of a complex number is not supported; "
                              "use cmath");
    switch (math->kind) {
    case MathFunction::Kind::Predicate:
      return types::boolean();
    case MathFunction::Kind::Rounding:
      if (isMath)
        return types::weakInt();
      break;
    case MathFunction::Kind::Square:
      return types::materialize(args[0]);
    case MathFunction::Kind::LdExp:
      requireInteger(inst, args[1], name + "()'s exponent");
      return mathResultType(isMath, args[0]);
    default:
      break;
    }
    const Type *common = args[0];
    for (const Type *a : args)
      common = types::promote(common, a);
    return mathResultType(isMath, common);
  }
  unsupported(inst, "calling '" + name + "' is not supported in kernels");
}

const Type *Inference::inferDeviceCall(Instruction &inst,
                                       const std::string &key,
                                       std::vector<const Type *> args) {
  const auto *table = specializations_.deviceFunctions;
  auto it = table ? table->find(key) : decltype(table->end()){};
  SPIRJIT_INTERNAL_CHECK(table && it != table->end() && it->second,
                         "device function " + key + " was not described");
  const FunctionDescription &callee = *it->second;
  for (const Type *&t : args) {
    if (!t->isNumber() && t->kind != TypeKind::Array &&
        t->kind != TypeKind::Item && t->kind != TypeKind::NdItem &&
        t->kind != TypeKind::Group)
      typingError(inst, "device function '" + callee.name +
                            "' cannot take a '" + t->str() +
                            "'; pass numbers, arrays or the item");
  }
  // A Python literal argument stays weak inside (NEP 50): scale(x, 3) with
  // x float32 computes in float32, as the same Python code would.
  const Type *declaredReturn = nullptr;
  if (!callee.signatures.empty()) {
    // The first declared signature the arguments convert to wins.
    const types::Signature *chosen = nullptr;
    std::vector<types::Signature> parsed;
    for (const std::string &text : callee.signatures) {
      try {
        parsed.push_back(types::parseSignature(text));
      } catch (const std::invalid_argument &e) {
        typingError(inst, e.what());
      }
    }
    // An exact match first; otherwise the first the numbers convert to.
    for (int pass = 0; pass < 2 && !chosen; ++pass)
      for (const types::Signature &sig : parsed) {
        if (sig.arguments.size() != args.size())
          continue;
        bool fits = true;
        for (size_t i = 0; i < args.size(); ++i) {
          bool exact = sig.arguments[i] == types::materialize(args[i]);
          bool argComplex = args[i]->kind == TypeKind::Complex ||
                            args[i]->kind == TypeKind::WeakComplex;
          bool converts = sig.arguments[i]->isNumber() &&
                          args[i]->isNumber() &&
                          (!argComplex ||
                           sig.arguments[i]->kind == TypeKind::Complex);
          fits &= pass == 0 ? exact : exact || converts;
        }
        if (fits) {
          chosen = &sig;
          break;
        }
      }
    if (!chosen) {
      std::string list;
      for (const std::string &text : callee.signatures)
        list += "\n  " + text;
      typingError(inst, "no signature of device function '" + callee.name +
                            "' accepts " + types::formatArguments(args) +
                            "; it has:" + list);
    }
    args = chosen->arguments;
    declaredReturn = chosen->returnType;
  }
  std::string specialization = key + types::formatArguments(args) +
                               (declaredReturn ? "->" + declaredReturn->str()
                                               : "");
  if (specializations_.inProgress.count(specialization))
    unsupported(inst, "recursion: '" + callee.name +
                          "' calls itself; rewrite it with a loop");
  auto found = specializations_.byKey.find(specialization);
  if (found == specializations_.byKey.end()) {
    specializations_.inProgress.insert(specialization);
    std::unique_ptr<ir::Function> body =
        buildPyIR(callee, buildControlFlowGraph(decodeBytecode(callee)));
    auto typed = std::make_unique<TypedFunction>(inferTypes(
        callee, std::move(body), args, /*isKernel=*/false, specializations_));
    specializations_.inProgress.erase(specialization);
    if (declaredReturn && declaredReturn->kind != TypeKind::None) {
      // The signature's return type is the function's: returns convert.
      if (!declaredReturn->isNumber())
        typingError(inst, "device function signatures return numbers");
      typed->returnType = typed->returnTypeAsWritten = declaredReturn;
    }
    found = specializations_.byKey.emplace(specialization, std::move(typed))
                .first;
  }
  result_.calls[&inst] = found->second.get();
  // The callee's group collectives need the kernel's scratch memory.
  result_.usesGroupScratch |= found->second->usesGroupScratch;
  const Type *returned = found->second->returnTypeAsWritten;
  if (returned->kind != TypeKind::None && !returned->isNumber())
    typingError(inst, "device function '" + callee.name + "' returns a '" +
                          returned->str() + "'; device functions return "
                          "numbers (or nothing)");
  return returned;
}

const Type *Inference::inferComplexMath(Instruction &inst,
                                        const std::string &name,
                                        const std::vector<const Type *> &args) {
  for (const Type *t : args)
    if (!t->isNumber())
      typingError(inst, "cmath." + name + "() needs numbers, got '" +
                            t->str() + "'");
  auto complexOf = [](const Type *t) {
    switch (t->kind) {
    case TypeKind::Complex:
      return t;
    case TypeKind::Float:
      return types::complex(t->bits);
    default: // Python numbers and integers give Python complex numbers
      return t->isWeak() ? types::weakComplex() : types::complex(64);
    }
  };
  auto expect = [&](size_t n) {
    if (args.size() != n)
      typingError(inst, "cmath." + name + "() takes " + std::to_string(n) +
                            " arguments, got " + std::to_string(args.size()));
  };
  if (name == "sqrt" || name == "exp" || name == "log") {
    expect(1);
    return complexOf(args[0]);
  }
  if (name == "phase") {
    expect(1);
    return complexPart(complexOf(args[0]));
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    expect(1);
    return types::boolean();
  }
  if (name == "rect") {
    expect(2);
    return complexOf(types::promote(args[0], args[1]));
  }
  unsupported(inst, "cmath." + name + "() is not supported in kernels (there "
                    "are cmath.sqrt, exp, log, phase, rect, isnan, isinf, "
                    "isfinite)");
}

const Type *Inference::infer(Instruction &inst) {
  auto operandType = [&](size_t i) { return inst.operands[i]->type; };
  for (Instruction *operand : inst.operands)
    if (!operand->type && inst.opcode != Opcode::Phi)
      return nullptr; // not known yet: a later round will see it

  switch (inst.opcode) {
  case Opcode::Arg:
    return result_.argumentTypes.at(inst.index);
  case Opcode::Const: {
    const Type *t = constantType(inst.constant);
    SPIRJIT_INTERNAL_CHECK(t, "constant of no type: " + inst.constant.str());
    return t;
  }
  case Opcode::Global: {
    auto it = desc_.globals.find(inst.name);
    SPIRJIT_INTERNAL_CHECK(it != desc_.globals.end(),
                           "unresolved global " + inst.name);
    return typeOfValue(inst, it->second, "global '" + inst.name + "'");
  }
  case Opcode::FreeVar:
    if (inst.index < 0 ||
        inst.index >= static_cast<int64_t>(desc_.closure.size()))
      SPIRJIT_INTERNAL_CHECK(false, "closure index out of range");
    return typeOfValue(inst, desc_.closure[inst.index],
                       "closure variable '" + inst.name + "'");
  case Opcode::Undef:
    return nullptr;
  case Opcode::Phi: {
    const Type *t = nullptr;
    for (Instruction *operand : inst.operands) {
      const Type *o = operand->type;
      if (!o)
        continue;
      if (!t) {
        t = o;
        continue;
      }
      if (t == o)
        continue;
      const Type *merged = types::promote(t, o);
      if (!merged)
        typingError(inst, "a variable holds a '" + t->str() +
                              "' on one path and a '" + o->str() +
                              "' on another; give it one type");
      t = merged;
    }
    return t;
  }
  case Opcode::BinaryOp:
    return inferBinary(inst, operandType(0), operandType(1));
  case Opcode::UnaryOp: {
    const Type *a = operandType(0);
    auto op = static_cast<ir::UnaryOperator>(inst.index);
    if (op == ir::UnaryOperator::Not) {
      if (!a->isNumber())
        typingError(inst, "'not' needs a number, got '" + a->str() + "'");
      return types::boolean();
    }
    if (!a->isNumber())
      typingError(inst, std::string("bad operand type for unary ") +
                            ir::unaryOperatorText(op) + ": '" + a->str() +
                            "'");
    if (op == ir::UnaryOperator::Invert) {
      if (a->kind == TypeKind::Float || a->kind == TypeKind::WeakFloat ||
          a->kind == TypeKind::Complex || a->kind == TypeKind::WeakComplex)
        typingError(inst, "bad operand type for unary ~: '" + a->str() + "'");
      return a;
    }
    if (a->kind == TypeKind::Bool)
      return types::integer(8, true);
    return a;
  }
  case Opcode::Compare: {
    auto op = static_cast<ir::CompareOperator>(inst.index);
    const Type *a = operandType(0), *b = operandType(1);
    if (op == ir::CompareOperator::Is || op == ir::CompareOperator::IsNot) {
      if (a->kind == TypeKind::None || b->kind == TypeKind::None) {
        bool same = a == b;
        result_.constants[&inst] =
            ConstValue::ofBool(op == ir::CompareOperator::Is ? same : !same);
        return types::boolean();
      }
      unsupported(inst, "'is' is only supported for comparisons with None");
    }
    if (!a->isNumber() || !b->isNumber())
      typingError(inst, std::string("cannot compare '") + a->str() +
                            "' and '" + b->str() + "' with " +
                            ir::compareOperatorText(op));
    bool isComplex = [&](const Type *t) {
      return t->kind == TypeKind::Complex || t->kind == TypeKind::WeakComplex;
    }(types::promote(a, b));
    if (isComplex && op != ir::CompareOperator::Eq &&
        op != ir::CompareOperator::Ne)
      typingError(inst, std::string("complex numbers cannot be ordered ('") +
                            ir::compareOperatorText(op) + "' on '" +
                            a->str() + "' and '" + b->str() + "')");
    return types::boolean();
  }
  case Opcode::Truth:
    if (!operandType(0)->isNumber())
      typingError(inst, "cannot use a '" + operandType(0)->str() +
                            "' as a condition");
    return types::boolean();
  case Opcode::GetAttr:
    return inferGetAttr(inst, operandType(0));
  case Opcode::Call:
    return inferCall(inst);
  case Opcode::GetItem: {
    const Type *object = operandType(0);
    if (object->kind == TypeKind::Array)
      return inferIndex(inst, object, *inst.operands[1]);
    if (object->kind == TypeKind::Tuple) {
      const Instruction *index = inst.operands[1];
      if (index->opcode != Opcode::Const ||
          index->constant.kind != ConstValue::Kind::Int)
        typingError(inst, "a tuple index must be a constant integer");
      int64_t i = index->constant.intValue;
      int64_t n = static_cast<int64_t>(object->elements.size());
      if (i < -n || i >= n)
        typingError(inst, "tuple index " + std::to_string(i) +
                              " out of range for a tuple of " +
                              std::to_string(n));
      return object->elements[i < 0 ? i + n : i];
    }
    typingError(inst, "cannot index a '" + object->str() + "'");
  }
  case Opcode::SetItem: {
    const Type *object = operandType(0);
    if (object->kind != TypeKind::Array)
      typingError(inst, "cannot assign to an item of a '" + object->str() +
                            "'");
    const Type *element = inferIndex(inst, object, *inst.operands[1]);
    if (element->kind == TypeKind::Array)
      typingError(inst, "cannot assign to a whole row of an array yet; "
                        "index every dimension");
    const Type *value = operandType(2);
    if (!value->isNumber())
      typingError(inst, "cannot store a '" + value->str() +
                            "' into an array of " + element->str());
    if ((value->kind == TypeKind::Complex ||
         value->kind == TypeKind::WeakComplex) &&
        element->kind != TypeKind::Complex)
      typingError(inst, "cannot store a complex value into an array of " +
                            element->str());
    return types::none();
  }
  case Opcode::BuildTuple: {
    std::vector<const Type *> elements;
    for (Instruction *operand : inst.operands)
      elements.push_back(operand->type);
    return types::tuple(elements);
  }
  case Opcode::TupleGet: {
    const Type *t = operandType(0);
    if (t->kind != TypeKind::Tuple)
      typingError(inst, "cannot unpack a '" + t->str() + "'");
    if (inst.index >= static_cast<int64_t>(t->elements.size()))
      typingError(inst, "not enough values to unpack (expected more than " +
                            std::to_string(t->elements.size()) + ")");
    return t->elements[inst.index];
  }
  case Opcode::GetIter:
    if (operandType(0)->kind != TypeKind::Range)
      unsupported(inst, "for loops in kernels iterate over range(...) only, "
                        "not over a '" +
                            operandType(0)->str() + "'");
    return types::rangeIterator();
  case Opcode::IterValid:
    return types::boolean();
  case Opcode::IterNext:
    return types::weakInt();
  case Opcode::Branch:
    return types::none();
  case Opcode::CondBranch:
    return types::none();
  case Opcode::Return: {
    const Type *t = operandType(0);
    if (result_.isKernel && t->kind != TypeKind::None)
      throw UserError(UserErrorKind::KernelReturnValue, desc_.filename,
                      inst.line,
                      "a kernel must not return a value (it returns a '" +
                          t->str() + "'); write results into an array");
    if (!returnType_)
      returnType_ = t;
    else if (returnType_ != t) {
      const Type *merged = types::promote(returnType_, t);
      if (!merged)
        typingError(inst, "the function returns a '" + returnType_->str() +
                              "' and a '" + t->str() + "'");
      returnType_ = merged;
    }
    return types::none();
  }
  }
  return nullptr;
}

void Inference::run() {
  ir::Function &function = *result_.function;
  if (result_.argumentTypes.size() != function.parameterNames.size())
    throw UserError(UserErrorKind::Typing, desc_.filename, desc_.firstLine,
                    "'" + function.name + "' takes " +
                        std::to_string(function.parameterNames.size()) +
                        " arguments but was given " +
                        std::to_string(result_.argumentTypes.size()));
  // Types only widen, so iterating to a fixed point terminates.
  for (int round = 0;; ++round) {
    SPIRJIT_INTERNAL_CHECK(round < 100, "type inference does not converge");
    bool changed = false;
    for (auto &block : function.blocks)
      for (auto &inst : block->instructions) {
        const Type *t = infer(*inst);
        if (t != inst->type) {
          inst->type = t;
          changed = true;
        }
      }
    if (!changed)
      break;
  }
  // A phi may merge a value with "not assigned on this path" (a variable
  // first assigned in a loop and read after it, as Python allows when the
  // loop runs); any other use of an unassigned variable is an error.
  for (auto &block : function.blocks)
    for (auto &inst : block->instructions)
      for (Instruction *operand : inst->operands)
        if (!operand->type &&
            !(inst->opcode == Opcode::Phi && operand->opcode == Opcode::Undef))
          throw UserError(UserErrorKind::Typing, desc_.filename, inst->line,
                          "a variable is used before it is assigned on "
                          "some path");
  result_.returnTypeAsWritten = returnType_ ? returnType_ : types::none();
  result_.returnType = types::materialize(result_.returnTypeAsWritten);
  // Which array arguments are stored to: NumPy arguments are copied back
  // only when the kernel may write them.
  result_.writtenArguments.assign(result_.argumentTypes.size(), false);
  auto markWritten = [&](const Instruction *array) {
    while (array->opcode == Opcode::GetItem)
      array = array->operands[0];
    if (array->opcode == Opcode::Arg) {
      result_.writtenArguments[array->index] = true;
      return;
    }
    // Through a phi or a tuple: assume every array may be written.
    for (size_t i = 0; i < result_.argumentTypes.size(); ++i)
      if (result_.argumentTypes[i]->kind == TypeKind::Array)
        result_.writtenArguments[i] = true;
  };
  for (auto &block : function.blocks)
    for (auto &inst : block->instructions) {
      if (inst->opcode == Opcode::SetItem)
        markWritten(inst->operands[0]);
      // Atomics write their array; compare_exchange also its expected_ref.
      auto kapiCall = result_.callArguments.find(inst.get());
      if (kapiCall != result_.callArguments.end() && !kapiCall->second.empty() &&
          kapiCall->second[0] &&
          kapiCall->second[0]->type->kind == TypeKind::Array) {
        const Type *callee = inst->operands[0]->type;
        bool atomic = callee->kind == TypeKind::Function &&
                      callee->name == "spirjit.kernel_api.AtomicRef";
        bool exchange = callee->kind == TypeKind::Method &&
                        callee->name == "compare_exchange";
        if (atomic || exchange)
          markWritten(kapiCall->second[0]);
      }
      auto call = result_.calls.find(inst.get());
      if (call == result_.calls.end())
        continue;
      // An array passed to a device function that writes its parameter.
      for (size_t i = 1; i < inst->operands.size(); ++i)
        if (call->second->writtenArguments[i - 1] &&
            inst->operands[i]->type->kind == TypeKind::Array)
          markWritten(inst->operands[i]);
    }
}

} // namespace

TypedFunction inferTypes(const FunctionDescription &description,
                         std::unique_ptr<ir::Function> function,
                         const std::vector<const Type *> &argumentTypes,
                         bool isKernel, Specializations &specializations) {
  TypedFunction result;
  result.description = &description;
  result.function = std::move(function);
  result.isKernel = isKernel;
  result.argumentTypes = argumentTypes;
  Inference(description, result, specializations).run();
  return result;
}

} // namespace spirjit
