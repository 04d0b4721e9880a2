// Whole arrays in host code (a jit function's driver): slices and views,
// element-wise arithmetic, comparisons and NumPy ufuncs on arrays,
// np.where, and the reductions a.sum() and friends. Each gets the type
// NumPy gives; the array-expression stage (compiler/ArrayExpressions.h)
// turns them into prange loops. Kernels index element by element: there
// these stay errors.
#include "compiler/infer/Inference.h"

#include "compiler/ArrayOps.h"
#include "compiler/MathFunctions.h"

namespace spirjit::infer {

namespace {

const Type *elementOf(const Type *t) {
  return t->kind == TypeKind::Array ? t->element : t;
}

/// NumPy's accumulator for sum and prod: small integers and booleans sum in
/// the platform integer, unsigned ones in uint64.
const Type *accumulatorOf(const Type *element) {
  if (element->kind == TypeKind::Bool)
    return types::int64();
  if (element->kind == TypeKind::Int)
    return element->isSigned ? types::int64() : types::integer(64, false);
  return element;
}

/// a.T: the same elements, dimensions reversed; contiguous along none
/// that a kernel could count on unless it has one dimension.
const Type *transposedType(const Type *array) {
  if (array->ndim <= 1)
    return array;
  return types::array(array->element, array->ndim, 'A');
}

const std::set<std::string> &arrayMethods() {
  static const std::set<std::string> names = {"sum", "prod", "min", "max",
                                              "mean", "dot", "copy",
                                              "astype", "item",
                                              "transpose", "reshape"};
  return names;
}

} // namespace
} // namespace spirjit::infer

namespace spirjit {
bool isViewIndex(const Type *index) {
  auto viewPart = [](const Type *part) {
    return part->kind == TypeKind::Slice || part->kind == TypeKind::None ||
           part->kind == TypeKind::Ellipsis;
  };
  if (viewPart(index))
    return true;
  if (index->kind == TypeKind::Tuple)
    for (const Type *e : index->elements)
      if (viewPart(e))
        return true;
  return false;
}

bool isRowIndex(const Type *array, const Type *index) {
  std::vector<const Type *> parts =
      index->kind == TypeKind::Tuple ? index->elements
                                     : std::vector<const Type *>{index};
  for (const Type *p : parts)
    if (p->kind != TypeKind::Int && p->kind != TypeKind::WeakInt &&
        p->kind != TypeKind::Bool)
      return false;
  return static_cast<int>(parts.size()) < array->ndim;
}

std::optional<UfuncOperator> ufuncOperator(const std::string &name) {
  const ArrayOp *ufunc = findUfunc(name);
  if (!ufunc)
    return std::nullopt;
  // The operator whose text the table's ScalarOp column gives.
  auto find = [&](ir::Opcode opcode, int count, auto text) {
    for (int op = 0; op < count; ++op)
      if (std::string(text(op)) == ufunc->scalarOp)
        return std::optional(UfuncOperator{opcode, op});
    SPIRJIT_INTERNAL_CHECK(false, std::string("ArrayOps.def names no ") +
                                      "operator '" + ufunc->scalarOp + "'");
    return std::optional<UfuncOperator>();
  };
  switch (ufunc->scalar) {
  case ArrayOpScalar::Binary:
    return find(ir::Opcode::BinaryOp,
                static_cast<int>(ir::BinaryOperator::MatMul), [](int op) {
                  return ir::binaryOperatorText(
                      static_cast<ir::BinaryOperator>(op));
                });
  case ArrayOpScalar::Compare:
    return find(ir::Opcode::Compare,
                static_cast<int>(ir::CompareOperator::Is), [](int op) {
                  return ir::compareOperatorText(
                      static_cast<ir::CompareOperator>(op));
                });
  case ArrayOpScalar::Unary:
    return find(ir::Opcode::UnaryOp,
                static_cast<int>(ir::UnaryOperator::Invert) + 1, [](int op) {
                  return ir::unaryOperatorText(
                      static_cast<ir::UnaryOperator>(op));
                });
  default:
    return std::nullopt;
  }
}

bool isArrayReduction(const std::string &name) {
  static const std::set<std::string> names = {
      "numpy.sum", "numpy.prod", "numpy.min", "numpy.max", "numpy.amin",
      "numpy.amax", "numpy.mean", "numpy.dot"};
  return names.count(name) != 0;
}
} // namespace spirjit

namespace spirjit::infer {

namespace {
/// An element-wise result: an array, or a number where every array operand
/// is 0-D (NumPy and numba give `np.array(2.0) + 1` as a number).
const Type *elementwiseResult(const Type *element, int ndim) {
  element = types::materialize(element);
  return ndim == 0 ? element : types::array(element, ndim, 'C');
}
} // namespace

const Type *Inference::inferSlice(Instruction &inst) {
  if (result_.kind != FunctionKind::Host)
    unsupported(inst, "slices (a[1:-1]) are for jit functions' array "
                      "expressions; a kernel indexes one element at a time");
  for (const Instruction *bound : inst.operands)
    if (bound->type->kind != TypeKind::None)
      requireInteger(inst, bound->type, "a slice bound");
  return types::slice();
}

const Type *Inference::inferView(Instruction &inst, const Type *array,
                                 const Type *index) {
  if (!isViewIndex(index))
    return nullptr;
  std::vector<const Type *> parts =
      index->kind == TypeKind::Tuple ? index->elements
                                     : std::vector<const Type *>{index};
  if (result_.kind != FunctionKind::Host) {
    for (const Type *p : parts) {
      if (p->kind == TypeKind::None)
        unsupported(inst, "None (np.newaxis) in an index makes a view, "
                          "which a kernel cannot: it indexes one element "
                          "at a time (write a[i] for a[i, None]); views "
                          "are for jit functions");
      if (p->kind == TypeKind::Ellipsis)
        unsupported(inst, "'...' in an index makes a view, which a kernel "
                          "cannot: it indexes one element at a time, by "
                          "an integer per dimension; views are for jit "
                          "functions");
    }
    unsupported(inst, "slices (a[1:-1]) are for jit functions' array "
                      "expressions; a kernel indexes one element at a "
                      "time");
  }
  // NumPy's rules: None adds a dimension of extent 1, `...` stands for
  // the full slices of the dimensions the other parts leave.
  int indexed = 0, ellipses = 0, ndim = 0;
  for (const Type *p : parts) {
    if (p->kind == TypeKind::Ellipsis) {
      ++ellipses;
      continue;
    }
    if (p->kind == TypeKind::None) {
      ++ndim;
      continue;
    }
    if (p->kind == TypeKind::Slice)
      ++ndim;
    else
      requireInteger(inst, p, "an array index");
    ++indexed;
  }
  if (ellipses > 1)
    typingError(inst, "an index can only have a single ellipsis ('...')");
  if (indexed > array->ndim)
    typingError(inst, "too many indices for a " +
                          std::to_string(array->ndim) +
                          "-dimensional array: " + std::to_string(indexed));
  ndim += array->ndim - indexed;
  return types::array(array->element, ndim, 'A');
}

const Type *Inference::inferArrayOperation(Instruction &inst) {
  bool anyArray = false;
  for (Instruction *operand : inst.operands)
    anyArray |= operand->type->kind == TypeKind::Array;
  if (!anyArray || result_.kind != FunctionKind::Host)
    return nullptr;
  if (inst.isa(Opcode::Compare) &&
      (static_cast<ir::CompareOperator>(inst.index) ==
           ir::CompareOperator::Is ||
       static_cast<ir::CompareOperator>(inst.index) ==
           ir::CompareOperator::IsNot))
    return nullptr; // `a is None`: identity, not element by element
  int ndim = 0;
  for (Instruction *operand : inst.operands) {
    const Type *t = operand->type;
    if (t->kind == TypeKind::Array) {
      ndim = std::max(ndim, t->ndim);
      if (!t->element->isNumber())
        typingError(inst, "arrays of '" + t->element->str() +
                              "' have no arithmetic");
    } else if (!t->isNumber()) {
      typingError(inst, "an array expression combines arrays and numbers, "
                        "not a '" + t->str() + "'");
    }
  }
  const Type *element = nullptr;
  switch (inst.opcode) {
  case Opcode::BinaryOp: {
    if (static_cast<ir::BinaryOperator>(inst.index) ==
        ir::BinaryOperator::MatMul)
      unsupported(inst, "the '@' operator is not supported in jit "
                        "functions; write the loops with prange");
    const Type *a = inst.operands[0]->type;
    element = inferBinary(inst, elementOf(a), elementOf(inst.operands[1]->type));
    if (inst.name == "inplace" && a->kind == TypeKind::Array) {
      // `a += b` writes into a: the result keeps a's type, which must hold
      // it (NumPy's same_kind casting).
      if (inst.operands[1]->type->kind == TypeKind::Array &&
          inst.operands[1]->type->ndim > a->ndim)
        typingError(inst, "cannot write a " +
                              std::to_string(inst.operands[1]->type->ndim) +
                              "-D result into a " + std::to_string(a->ndim) +
                              "-D array in place");
      const Type *kept = a->element;
      auto rank = [](const Type *t) {
        switch (t->kind) {
        case TypeKind::Bool:
          return 0;
        case TypeKind::Int:
          return 1;
        case TypeKind::Float:
          return 2;
        default:
          return 3;
        }
      };
      if (rank(types::materialize(element)) > rank(kept))
        typingError(inst, "cannot cast the result of " +
                              std::string(ir::binaryOperatorText(
                                  static_cast<ir::BinaryOperator>(inst.index))) +
                              "= from " + types::materialize(element)->str() +
                              " to the array's " + kept->str() +
                              " in place (NumPy's same_kind rule); write "
                              "a = a " +
                              ir::binaryOperatorText(
                                  static_cast<ir::BinaryOperator>(inst.index)) +
                              " b for a new array");
      return types::array(kept, a->ndim, a->layout);
    }
    break;
  }
  case Opcode::UnaryOp:
    if (static_cast<ir::UnaryOperator>(inst.index) == ir::UnaryOperator::Not)
      typingError(inst, "the truth value of an array is ambiguous; use "
                        "np.logical_not or ~ on a boolean array");
    element = inferUnary(inst, elementOf(inst.operands[0]->type));
    break;
  case Opcode::Compare: {
    auto op = static_cast<ir::CompareOperator>(inst.index);
    if (op == ir::CompareOperator::Is || op == ir::CompareOperator::IsNot)
      typingError(inst, "'is' compares objects, not array elements; use ==");
    element = inferCompare(inst, elementOf(inst.operands[0]->type),
                           elementOf(inst.operands[1]->type));
    break;
  }
  default:
    return nullptr;
  }
  return elementwiseResult(element, ndim);
}

const Type *Inference::inferArrayCall(Instruction &inst) {
  const Type *callee = inst.operands[0]->type;
  std::vector<const Type *> args;
  bool anyArray = false;
  for (size_t i = 1; i < inst.operands.size(); ++i) {
    args.push_back(inst.operands[i]->type);
    anyArray |= args.back()->kind == TypeKind::Array;
  }
  bool method = callee->kind == TypeKind::Method &&
                callee->elements[0]->kind == TypeKind::Array;
  if (result_.kind != FunctionKind::Host || (!method && !anyArray) ||
      (callee->kind != TypeKind::Function && !method))
    return nullptr;
  std::string name = callee->name;
  if (name == "len" || name == "enumerate" || name == "zip")
    return nullptr; // the extent of axis 0, as in kernels; what a for loop
                    // walks (InferMath.cpp)
  if (name.compare(0, 7, "device:") == 0 &&
      !specializations_.deviceFunctions->at(name.substr(7))->elementwise)
    return nullptr; // a device function that takes arrays: a call
  if (!inst.name.empty())
    unsupported(inst, name + "() on arrays takes no keyword arguments in a "
                             "jit function (axis= and out= are not "
                             "supported); write the loop with prange");
  if (method) {
    args.insert(args.begin(), callee->elements[0]);
    name = "numpy." + name;
  }
  auto arity = [&](size_t n) {
    if (args.size() != n)
      typingError(inst, name + "() takes " + std::to_string(n) +
                            " argument(s) here, got " +
                            std::to_string(args.size()));
  };
  auto requireArray = [&](const Type *t) {
    if (t->kind != TypeKind::Array)
      typingError(inst, name + "() needs an array, not '" + t->str() + "'");
    if (!t->element->isNumber())
      typingError(inst, name + "() needs an array of numbers");
  };
  if (name == "numpy.sum" || name == "numpy.prod") {
    arity(1);
    requireArray(args[0]);
    return accumulatorOf(args[0]->element);
  }
  if (name == "numpy.min" || name == "numpy.max" || name == "numpy.amin" ||
      name == "numpy.amax") {
    arity(1);
    requireArray(args[0]);
    if (args[0]->element->kind == TypeKind::Complex)
      typingError(inst, name + "() cannot order complex numbers");
    return args[0]->element;
  }
  if (name == "numpy.mean") {
    arity(1);
    requireArray(args[0]);
    const Type *e = args[0]->element;
    return e->kind == TypeKind::Float || e->kind == TypeKind::Complex
               ? e
               : types::floating(64);
  }
  if (name == "numpy.dot") {
    arity(2);
    for (const Type *t : args) {
      requireArray(t);
      if (t->ndim != 1)
        unsupported(inst, "dot() in a jit function takes two 1-D arrays; "
                          "write matrix products with prange");
    }
    return types::materialize(types::promote(args[0]->element,
                                             args[1]->element));
  }
  if (name == "numpy.copy") {
    arity(1);
    requireArray(args[0]);
    return types::array(args[0]->element, args[0]->ndim, 'C');
  }
  if (name == "numpy.reshape") {
    if (args.empty() || args[0]->kind != TypeKind::Array)
      typingError(inst, "reshape() needs an array");
    if (args[0]->layout != 'C')
      unsupported(inst, "reshape() in a jit function takes a C-contiguous "
                        "array, and this one may not be (a slice or a "
                        "transpose); reshape a.copy()");
    std::vector<const Type *> extents(args.begin() + 1, args.end());
    if (extents.size() == 1 && extents[0]->kind == TypeKind::Tuple)
      extents = extents[0]->elements;
    if (extents.empty())
      typingError(inst, "reshape() needs the new shape");
    for (const Type *e : extents)
      requireInteger(inst, e, "an extent of reshape()'s shape");
    return types::array(args[0]->element, static_cast<int>(extents.size()),
                        'C');
  }
  if (name == "numpy.transpose") {
    arity(1);
    if (args[0]->kind != TypeKind::Array)
      typingError(inst, "transpose() needs an array, not '" +
                            args[0]->str() + "'");
    return transposedType(args[0]);
  }
  if (name == "numpy.item") {
    arity(1);
    if (args[0]->kind != TypeKind::Array)
      typingError(inst, "item() needs an array, not '" + args[0]->str() + "'");
    return args[0]->element;
  }
  if (name == "numpy.astype") {
    arity(2);
    if (args[1]->kind != TypeKind::DTypeClass)
      typingError(inst, "astype() needs a NumPy type such as np.float32");
    return types::array(args[1]->element, args[0]->ndim, 'C');
  }
  // Element-wise functions: the type of the function of the elements.
  int ndim = 0;
  std::vector<const Type *> elements;
  for (const Type *t : args) {
    if (t->kind == TypeKind::Array) {
      ndim = std::max(ndim, t->ndim);
      if (!t->element->isNumber())
        typingError(inst, name + "() needs arrays of numbers");
    } else if (!t->isNumber()) {
      typingError(inst, name + "() on arrays takes arrays and numbers, not '" +
                            t->str() + "'");
    }
    elements.push_back(elementOf(t));
  }
  if (name == "numpy.where") {
    arity(3);
    if (elements[0]->kind != TypeKind::Bool)
      typingError(inst, "np.where()'s condition must be a boolean array "
                        "(a comparison), not of " + elements[0]->str());
    const Type *t = types::promote(elements[1], elements[2]);
    if (!t)
      typingError(inst, "np.where() cannot combine " + elements[1]->str() +
                            " and " + elements[2]->str());
    return elementwiseResult(t, ndim);
  }
  if (name.compare(0, 7, "device:") == 0) {
    // A device function (a @vectorize's scalar function) on arrays: applied
    // element by element.
    const Type *t = inferDeviceCall(inst, name.substr(7), elements);
    if (!t->isNumber())
      typingError(inst, "a function applied to arrays element by element "
                        "must return a number, not '" + t->str() + "'");
    return types::array(types::materialize(t), ndim, 'C');
  }
  if (name.compare(0, 5, "math.") == 0)
    typingError(inst, name + "() takes a number; for arrays use the NumPy "
                             "function (np." + name.substr(5) + ")");
  if (name != "abs" && !findUfunc(name))
    unsupported(inst, unsupportedCallMessage(name, /*host=*/true));
  return elementwiseResult(inferBuiltinCall(inst, elements), ndim);
}

const Type *Inference::arrayMethodType(const Type *array,
                                       const std::string &name) {
  if (result_.kind != FunctionKind::Host || !arrayMethods().count(name))
    return nullptr;
  return types::method(array, name);
}

} // namespace spirjit::infer
