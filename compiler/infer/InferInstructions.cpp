// One pyir instruction at a time; calls go to InferCalls.cpp.
#include "compiler/infer/Inference.h"
#include "frontend/CallArguments.h"
#include "frontend/UnsupportedConstructs.h"

#include "compiler/RandomDraws.h"
#include "frontend/UnsupportedConstructs.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace spirjit::infer {

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
  case ConstValue::Kind::Str: // only a group algorithm's op (BuildPyIR)
    return types::function("op:" + value.text);
  case ConstValue::Kind::Other: // only `...` (see BuildPyIR)
    return value.text == "ellipsis" ? types::ellipsis() : nullptr;
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
  case GlobalValue::Kind::Array: {
    const Type *element = types::fromDTypeName(value.dtype);
    if (!element)
      typingError(inst, what + " is an array of unsupported dtype " +
                            value.dtype);
    return types::array(element, static_cast<int>(value.shape.size()), 'C');
  }
  case GlobalValue::Kind::NamedTupleClass: {
    std::vector<std::string> fields;
    for (const ConstValue &field : value.value.items.at(0).items)
      fields.push_back(field.text);
    return types::namedTupleClass(value.name, fields);
  }
  case GlobalValue::Kind::Unknown:
    // A string global or closure value (getattr's name, an array's
    // usm_type or device): a constant, typed as string literals are.
    if (value.value.kind == ConstValue::Kind::Str) {
      result_.constants[&inst] = value.value;
      return constantType(value.value);
    }
    break;
  }
  if (value.name == "ndarray" || value.name == "DeviceArray")
    unsupported(inst, what + " is an array that compiled code cannot freeze "
                          "(a DeviceArray, or a NumPy array of more than "
                          "64 KB, more than 3 dimensions or another "
                          "dtype): pass it to the function as an "
                          "argument");
  unsupported(inst, what + " is a Python '" + value.name +
                        "' object, which compiled code cannot use; it sees "
                        "numbers, tuples of numbers, modules such as math "
                        "and numpy, and spirjit functions");
}

namespace {

/// How a user knows the object of an attribute: a module's or function's
/// name, the kernel API's class of an item, not the compiler's
/// `Function(numpy.linalg)` or `Item(1)`.
std::string spelling(const Type *object) {
  switch (object->kind) {
  case TypeKind::Module:
  case TypeKind::Function:
    return object->name;
  case TypeKind::Item:
    return "a " + std::to_string(object->ndim) + "-dimensional kapi.Item";
  case TypeKind::NdItem:
    return "a " + std::to_string(object->ndim) + "-dimensional kapi.NdItem";
  case TypeKind::Group:
    return "a " + std::to_string(object->ndim) + "-dimensional kapi.Group";
  default:
    return "'" + object->str() + "'";
  }
}

} // namespace

const Type *Inference::inferGetAttr(Instruction &inst, const Type *object) {
  const std::string &name = inst.name;
  if (object->isNumber() && (name == "real" || name == "imag"))
    return complexPart(object);
  if (object->isNumber() && name == "conjugate")
    return types::method(object, name);
  switch (object->kind) {
  case TypeKind::Module: {
    const std::string &module = object->name;
    auto member = desc_.moduleMembers.find(module + "." + name);
    if (member != desc_.moduleMembers.end())
      return typeOfValue(inst, member->second, "'" + member->first + "'");
    if (module == "math" || module == "numpy") {
      static const std::map<std::string, double> constants = {{"pi", M_PI},
                                                              {"e", M_E},
                                                              {"tau", 2 * M_PI},
                                                              {"inf", INFINITY},
                                                              {"nan", NAN}};
      auto c = constants.find(name);
      if (c != constants.end()) {
        result_.constants[&inst] = ConstValue::ofFloat(c->second);
        return types::weakFloat();
      }
      if (module == "numpy")
        if (const Type *dtype = types::fromDTypeName(name))
          return types::dtypeClass(dtype);
    }
    if (module == "numpy" && name == "newaxis") {
      result_.constants[&inst] = ConstValue::none();
      return types::none();
    }
    if (module == "numpy" && name == "random")
      return types::module("numpy.random");
    // spirjit.random's device functions (philox_uniform...): members the
    // description lists as "spirjit.random.<name>".
    if (module == "spirjit" && name == "random")
      return types::module("spirjit.random");
    // numba's and numba-dpex's prange mean spirjit's.
    if ((module == "numba" || module == "numba_dpex" || module == "spirjit") &&
        (name == "prange" || name == "pndindex"))
      return types::function("spirjit." + name);
    return types::function(module + "." + name);
  }
  case TypeKind::Function:
    if (const Type *constant = inferKernelApiConstant(inst, object))
      return constant;
    // np.linalg.norm, np.add.reduce: a NumPy function its call names, so
    // that jit code learns it is not supported (unsupportedCallMessage).
    if (result_.kind == FunctionKind::Host &&
        object->name.rfind("numpy.", 0) == 0)
      return types::function(object->name + "." + name);
    break;
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
  case TypeKind::Tuple:
    if (!object->isNamedTuple())
      break;
    for (size_t i = 0; i < object->fields.size(); ++i)
      if (object->fields[i] == name)
        return object->elements[i];
    if (name == "_replace" || name == "_asdict" || name == "_make")
      unsupported(inst, "namedtuple's " + name +
                            "() is not supported in jit code (numba has "
                            "none either); build a new one: " +
                            types::namedTupleClassName(object) + "(...)");
    break;
  case TypeKind::Array:
    if (name == "shape")
      return types::tuple(
          std::vector<const Type *>(object->ndim, types::weakInt()));
    if (name == "ndim") {
      result_.constants[&inst] = ConstValue::ofInt(object->ndim);
      return types::weakInt();
    }
    if (name == "size" || name == "nbytes")
      return types::weakInt();
    if (name == "itemsize") { // NumPy's: the element's bytes
      result_.constants[&inst] =
          ConstValue::ofInt(types::itemsize(object->element));
      return types::weakInt();
    }
    if (name == "dtype")
      return types::dtypeClass(object->element);
    if ((name == "real" || name == "imag") &&
        result_.kind == FunctionKind::Host && object->element->isNumber()) {
      // Element by element (ArrayExpressions.cpp): the parts' dtype.
      const Type *e = object->element;
      if (e->kind == TypeKind::Complex)
        e = types::floating(e->bits); // a part's width
      return types::array(e, object->ndim, 'C');
    }
    if (name == "T" && result_.kind == FunctionKind::Host)
      return object->ndim <= 1
                 ? object
                 : types::array(object->element, object->ndim, 'A');
    // Where an array of a jit call lives: the call's device, as a Device
    // argument names it (a call runs on one device). No run-time value;
    // spirjit's constructors take it as device= or sycl_queue=.
    if (result_.kind == FunctionKind::Host &&
        (name == "device" || name == "sycl_queue" || name == "sycl_device"))
      return types::function("spirjit.Device");
    if (const Type *method = arrayMethodType(object, name))
      return method;
    break;
  case TypeKind::DTypeClass:
    if (name == "type")
      return object;
    break;
  default:
    break;
  }
  std::string what = spelling(object);
  if (object->kind == TypeKind::Module || object->kind == TypeKind::Function)
    what = "'" + what + "'";
  typingError(inst, what + " has no attribute '" + name + "' usable in " +
                        (result_.kind == FunctionKind::Host
                             ? "jit functions"
                             : "kernels"));
}

const Type *Inference::inferArrayIndex(Instruction &inst, const Type *array,
                                       const Type *index) {
  // NumPy's advanced indexing in jit host code: a 1-D array indexed by an
  // array of integers (a gather, shaped as the index; a scatter when
  // stored), and a boolean mask of the array's shape: a store through it,
  // or a read of the elements where it holds, a 1-D array (the jit
  // library's, MaskReads.h).
  if (index->kind != TypeKind::Array || result_.kind != FunctionKind::Host)
    return nullptr;
  if (index->element->kind == TypeKind::Bool) {
    if (index->ndim != array->ndim)
      unsupported(inst, "a boolean mask indexes an array of as many "
                        "dimensions in jit code; this mask has " +
                            std::to_string(index->ndim) +
                            " dimension(s), the array " +
                            std::to_string(array->ndim));
    if (!inst.isa(Opcode::SetItem))
      return types::array(array->element, 1, 'C');
    return index;
  }
  if (index->element->kind != TypeKind::Int)
    typingError(inst, "arrays used as indices must be of integer (or "
                      "boolean) type, not " +
                          index->element->str());
  if (array->ndim != 1)
    unsupported(inst, "an array of indices indexes 1-D arrays in jit code; "
                      "this one has " +
                          std::to_string(array->ndim) +
                          " dimensions (index a.reshape(-1) by flat "
                          "indices)");
  return types::array(array->element, index->ndim, 'C');
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
  if (array->ndim == 0)
    typingError(inst, "cannot index a 0-dimensional array with an index; "
                      "its element is a[()]");
  if (array->ndim == 1)
    return array->element;
  // a[i] of an N-D array is the (N-1)-D view of row i.
  char layout = array->layout == 'C' ? 'C' : 'A';
  return types::array(array->element, array->ndim - 1, layout);
}

const Type *Inference::infer(Instruction &inst) {
  auto operandType = [&](size_t i) { return inst.operands[i]->type; };
  if (inst.isa(Opcode::MakeFunction)) {
    // The jit inliner puts lambdas and nested defs where they are called;
    // kernels and device functions have no such step.
    SPIRJIT_INTERNAL_CHECK(result_.kind != FunctionKind::Host,
                           "a nested function left after inlining");
    auto nested = desc_.nestedCode.find(inst.name);
    throw unsupportedConstruct(
        desc_.filename, inst.line,
        nested != desc_.nestedCode.end() && nested->second
            ? nestedCodeConstruct(nested->second->name)
            : "nested function");
  }
  for (Instruction *operand : inst.operands)
    if (!operand->type && inst.opcode != Opcode::Phi)
      return nullptr; // not known yet: a later round will see it
  if (!inst.isa(Opcode::Phi) && listItemsPending(inst))
    return nullptr;
  if (!inst.isa(Opcode::Phi))
    if (const Type *t = inferList(inst))
      return t;

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
    for (size_t i = 0; i < inst.operands.size(); ++i) {
      Instruction *operand = inst.operands[i];
      const Type *o = operand->type;
      if (!o)
        continue;
      // Only over live edges (Inference::live_).
      if (i < inst.parent->predecessors.size()) {
        const ir::Block *from = inst.parent->predecessors[i];
        std::vector<ir::Block *> next;
        if (live_.count(from))
          next = liveSuccessors(*from);
        if (std::find(next.begin(), next.end(), inst.parent) == next.end())
          continue;
      }
      if (!t) {
        t = o;
        continue;
      }
      if (t == o)
        continue;
      if (const Type *lists = joinLists(t, o)) {
        t = lists;
        continue;
      }
      const Type *merged = types::promote(t, o);
      if (!merged && (t->kind == TypeKind::None || o->kind == TypeKind::None))
        typingError(inst, "a variable is None on one path and a '" +
                              types::materialize(t->kind == TypeKind::None ? o : t)->str() +
                              "' on another (an optional value): test it "
                              "with 'if x is not None:' and use it under "
                              "that test");
      if (!merged)
        typingError(inst, "a variable holds a '" + t->str() +
                              "' on one path and a '" + o->str() +
                              "' on another; give it one type");
      t = merged;
    }
    return t;
  }
  case Opcode::BinaryOp:
    if (const Type *t = inferArrayOperation(inst))
      return t;
    return inferBinary(inst, operandType(0), operandType(1));
  case Opcode::UnaryOp:
    if (const Type *t = inferArrayOperation(inst))
      return t;
    return inferUnary(inst, operandType(0));
  case Opcode::Compare:
    if (const Type *t = inferArrayOperation(inst))
      return t;
    return inferCompare(inst, operandType(0), operandType(1));
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
    if (object->kind == TypeKind::Array) {
      if (const Type *view = inferView(inst, object, operandType(1)))
        return view;
      if (const Type *gathered = inferArrayIndex(inst, object, operandType(1)))
        return gathered;
      return inferIndex(inst, object, *inst.operands[1]);
    }
    if (object->kind == TypeKind::Tuple) {
      const Instruction *index = inst.operands[1];
      // A loop over the tuple reads it at its index (SequenceLoops.h).
      if (inst.index == 1 && types::uniformElement(object))
        return types::uniformElement(object);
      if (index->opcode != Opcode::Const) {
        // t[i] of a variable i: a tuple of one type (numbers promoted to
        // one, or arrays of one type), its element chosen at run time.
        requireInteger(inst, index->type, "a tuple index");
        if (const Type *element = types::uniformElement(object))
          return element;
        typingError(inst, "a tuple indexed by a variable must hold elements "
                          "of one type (numbers, or arrays of one type), "
                          "not '" +
                              object->str() +
                              "'; index it by a constant integer");
      }
      if (index->constant.kind != ConstValue::Kind::Int)
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
      typingError(inst,
                  "cannot assign to an item of a '" + object->str() + "'");
    {
      // A frozen global array is a constant of the compiled code.
      const Instruction *base = inst.operands[0];
      while (base->isa(Opcode::GetItem))
        base = base->operands[0];
      const GlobalValue *frozen = valueOf(base, desc_);
      if (frozen && frozen->kind == GlobalValue::Kind::Array)
        typingError(inst, "'" + base->name +
                              "' is a global array, frozen into the compiled "
                              "code as numba freezes it: it is read-only "
                              "there; pass it as an argument to write it");
    }
    if (inferArrayIndex(inst, object, operandType(1))) {
      // a[idx] = v, a[mask] = v: element by element over the index.
      const Type *value = operandType(2);
      if (!value->isNumber() && value->kind != TypeKind::Array)
        typingError(inst, "cannot store a '" + value->str() +
                              "' into an array of " + object->element->str());
      if (operandType(1)->element->kind == TypeKind::Bool &&
          value->kind == TypeKind::Array)
        unsupported(inst, "a[mask] = b stores a number in jit code; for "
                          "NumPy's a[mask] = b[mask] write "
                          "a[:] = np.where(mask, b, a)");
      return types::none();
    }
    const Type *view = inferView(inst, object, operandType(1));
    if (!view && isRowIndex(object, operandType(1))) {
      if (result_.kind != FunctionKind::Host)
        typingError(inst, "cannot assign to a whole row of an array in a "
                          "kernel; index every dimension");
      int fixed = operandType(1)->kind == TypeKind::Tuple
                      ? static_cast<int>(operandType(1)->elements.size())
                      : 1;
      view = types::array(object->element, object->ndim - fixed, 'A');
    }
    if (view) {
      // a[1:-1] = b, a[:] = 0 or a[i] = row: an array assignment in host
      // code.
      const Type *value = operandType(2);
      if (!value->isNumber() && value->kind != TypeKind::Array)
        typingError(inst, "cannot store a '" + value->str() +
                              "' into an array of " + object->element->str());
      if (value->kind == TypeKind::Array && value->ndim > view->ndim)
        typingError(inst, "cannot store a " + std::to_string(value->ndim) +
                              "-D array into a " +
                              std::to_string(view->ndim) + "-D slice");
      const Type *e = value->kind == TypeKind::Array ? value->element : value;
      if ((e->kind == TypeKind::Complex || e->kind == TypeKind::WeakComplex) &&
          object->element->kind != TypeKind::Complex)
        typingError(inst, "cannot store complex values into an array of " +
                              object->element->str());
      return types::none();
    }
    const Type *element = inferIndex(inst, object, *inst.operands[1]);
    const Type *value = operandType(2);
    if (!value->isNumber())
      typingError(inst, "cannot store a '" + value->str() +
                            "' into an array of " + element->str() +
                            (value->kind == TypeKind::Array && value->ndim == 0
                                 ? " (a 0-D array's element is a[()])"
                                 : ""));
    if ((value->kind == TypeKind::Complex ||
         value->kind == TypeKind::WeakComplex) &&
        element->kind != TypeKind::Complex)
      typingError(inst, "cannot store a complex value into an array of " +
                            element->str());
    return types::none();
  }
  case Opcode::BuildTuple: {
    // A list literal, a tuple of constant length (BuildPyIR.cpp), is jit
    // code's only.
    if (inst.name == "list" && result_.kind != FunctionKind::Host)
      throw unsupportedConstruct(desc_.filename, inst.line, "list");
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
    // `for x in a` in host code: over the elements of a 1-D array, the
    // rows of another, as NumPy iterates (SequenceLoops.h rewrites it).
    if (result_.kind == FunctionKind::Host &&
        ((operandType(0)->kind == TypeKind::Array &&
          operandType(0)->ndim >= 1) ||
         (operandType(0)->kind == TypeKind::Tuple &&
          types::uniformElement(operandType(0))) ||
         (operandType(0)->kind == TypeKind::Range &&
          !operandType(0)->name.empty())))
      return types::sequenceIterator(operandType(0));
    if (operandType(0)->kind != TypeKind::Range)
      unsupported(inst, result_.kind == FunctionKind::Host
                            ? "for loops in jit functions iterate over "
                              "range(...), prange(...), pndindex(...), "
                              "arrays and tuples of one type, not over a '" +
                                  operandType(0)->str() + "'"
                            : "for loops in kernels iterate over range(...) "
                              "only, not over a '" +
                                  operandType(0)->str() + "'");
    // The parfor stage turns a jit function's outermost pndindex loops
    // into launches; one inside a prange loop would be a loop in a kernel.
    if (operandType(0)->ndim && result_.kind != FunctionKind::Host)
      unsupported(inst, "a pndindex() loop inside a prange loop or a kernel: "
                        "only a jit function's outermost parallel loop may "
                        "be one; use nested range loops here");
    return types::rangeIterator(operandType(0)->ndim);
  case Opcode::IterValid:
    return types::boolean();
  case Opcode::IterNext: {
    if (!operandType(0)->elements.empty()) {
      auto itemOf = [](const Type *sequence) {
        if (sequence->kind == TypeKind::List)
          return sequence->element;
        return sequence->ndim == 1
                   ? sequence->element
                   : types::array(sequence->element, sequence->ndim - 1, 'A');
      };
      const Type *sequence = operandType(0)->elements[0];
      if (sequence->kind == TypeKind::List)
        return sequence->element;
      if (sequence->kind == TypeKind::Array)
        return itemOf(sequence);
      if (sequence->kind == TypeKind::Tuple)
        return types::uniformElement(sequence);
      std::vector<const Type *> items; // enumerate's index first
      if (sequence->name == "enumerate")
        items.push_back(types::int64());
      for (const Type *array : sequence->elements)
        items.push_back(itemOf(array));
      return types::tuple(items);
    }
    int ndim = operandType(0)->ndim;
    if (!ndim)
      return types::weakInt();
    return types::tuple(std::vector<const Type *>(ndim, types::weakInt()));
  }
  case Opcode::Assert:
    if (!inst.operands.empty() &&
        !(inst.operands[0]->isa(Opcode::Const) &&
          inst.operands[0]->constant.kind == ConstValue::Kind::Str))
      unsupported(inst, "an assert's message in a kernel must be a string "
                        "literal");
    return types::none();
  case Opcode::Slice:
    return inferSlice(inst);
  case Opcode::Reshape:
    return types::array(operandType(0)->element,
                        static_cast<int>(inst.operands.size()) - 1, 'C');
  case Opcode::View: {
    // Base, offsets per base dimension, then (length, base dimension,
    // step) per view dimension (PyIROpcodes.def).
    const Type *base = operandType(0);
    int ndim = static_cast<int>(inst.operands.size() - 1 - base->ndim) / 3;
    return types::array(base->element, ndim, 'A');
  }
  case Opcode::Fail:
    return types::none();
  case Opcode::Random:
    return randomDrawType(static_cast<RandomDraw>(inst.index));
  case Opcode::Launch:
    SPIRJIT_INTERNAL_CHECK(false, "a launch before the parfor stage made it");
    return nullptr;
  case Opcode::Branch:
    return types::none();
  case Opcode::CondBranch:
    return types::none();
  case Opcode::Return: {
    if (inst.name == "assert" || inst.name == "fail") // returns nothing
      return types::none();
    const Type *t = operandType(0);
    if (result_.kind == FunctionKind::Kernel && t->kind != TypeKind::None)
      throw UserError(UserErrorKind::KernelReturnValue, desc_.filename,
                      inst.line,
                      "a kernel must not return a value (it returns a '" +
                          t->str() + "'); write results into an array");
    if (!returnType_)
      returnType_ = t;
    else if (returnType_ != t) {
      // Types widen as inference iterates; tuples widen element-wise.
      std::function<const Type *(const Type *, const Type *)> merge =
          [&](const Type *a, const Type *b) -> const Type * {
        if (a == b)
          return a;
        if (a->kind == TypeKind::Tuple && b->kind == TypeKind::Tuple &&
            a->name == b->name && a->elements.size() == b->elements.size()) {
          std::vector<const Type *> elements;
          for (size_t i = 0; i < a->elements.size(); ++i) {
            const Type *e = merge(a->elements[i], b->elements[i]);
            if (!e)
              return nullptr;
            elements.push_back(e);
          }
          return types::withElements(a, elements);
        }
        if (a->kind == TypeKind::List)
          return joinLists(a, b);
        if (a->kind == TypeKind::Array || b->kind == TypeKind::Array)
          return nullptr;
        return types::promote(a, b);
      };
      const Type *merged = merge(returnType_, t);
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

} // namespace spirjit::infer
