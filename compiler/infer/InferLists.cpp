// Lists that change in jit host code (numba's typed list): `[]`, `[a, b]`,
// `l.append(v)`, `len(l)`, `l[i]`, `l[i] = v`, `for x in l`,
// `np.array(l)`, comprehensions, and a list returned to Python. A list
// literal only read is a tuple (BuildPyIR's checkLists); one that changes
// is a `list` instruction whose name is its class, the literals one value
// may be. A class has one element type: the promotion of its items and of
// every value appended to it, widened as inference iterates, so `l = []`
// takes the type of what is appended later. A list passed as an argument
// (numba's reflected list) has its items' type, which what it takes must
// keep.
#include "compiler/infer/Inference.h"
#include "frontend/UnsupportedConstructs.h"

#include <algorithm>

namespace spirjit::infer {

const Type *joinLists(const Type *a, const Type *b) {
  if (a->kind != TypeKind::List || b->kind != TypeKind::List)
    return nullptr;
  // An argument's items have their type in the caller's memory already.
  if (!a->name.empty() || !b->name.empty()) {
    const Type *argument = a->name.empty() ? b : a;
    const Type *other = argument == a ? b : a;
    return other->element == argument->element ||
                   other->element->kind == TypeKind::None
               ? argument
               : nullptr;
  }
  if (a->element->kind == TypeKind::None)
    return b;
  if (b->element->kind == TypeKind::None)
    return a;
  const Type *element = types::promote(a->element, b->element);
  return element ? types::list(types::materialize(element)) : nullptr;
}

namespace {

bool isListValue(const Instruction *v) {
  return v->type && v->type->kind == TypeKind::List;
}

/// The class of the list `value` is: the name of a `list` instruction it
/// may be (through phis and sorted()), or "" for a list from elsewhere.
std::string listClass(const Instruction *value) {
  std::vector<const Instruction *> pending = {value};
  std::set<const Instruction *> seen;
  while (!pending.empty()) {
    const Instruction *v = pending.back();
    pending.pop_back();
    if (!seen.insert(v).second)
      continue;
    if (v->isa(Opcode::BuildList))
      return v->name;
    if (v->isa(Opcode::Phi))
      pending.insert(pending.end(), v->operands.begin(), v->operands.end());
    // sorted(l) is a new list of l's type: one class with it.
    if (v->isa(Opcode::Call) && v->operands.size() >= 2 &&
        v->operands[0]->type->kind == TypeKind::Function &&
        v->operands[0]->type->name == "sorted")
      pending.push_back(v->operands[1]);
  }
  return "";
}

/// Whether a list argument of `element`s can take a `value` as Python
/// would hold it: of the same kind (bool, integer, float, complex), which
/// the conversion keeps; a float into a list of ints would be truncated.
bool reflectedListTakes(const Type *element, const Type *value) {
  if (!value->isNumber())
    return false;
  const Type *merged = types::promote(element, value);
  return merged && types::materialize(merged)->kind == element->kind;
}

bool unknownItems(const Type *t) {
  return t && t->kind == TypeKind::List && t->element->kind == TypeKind::None;
}

} // namespace

bool listItemsPending(const Instruction &inst) {
  if (inst.isa(Opcode::GetItem) || inst.isa(Opcode::Return))
    return unknownItems(inst.operands[0]->type);
  if (inst.isa(Opcode::IterNext)) {
    const Type *iterator = inst.operands[0]->type;
    return !iterator->elements.empty() && unknownItems(iterator->elements[0]);
  }
  if (inst.isa(Opcode::Call) && inst.operands[0]->type->kind == TypeKind::Function)
    for (const Instruction *operand : inst.operands)
      if (unknownItems(operand->type))
        return true;
  return false;
}

void Inference::requireListItems() {
  for (auto &block : result_.function->blocks)
    for (auto &inst : block->instructions)
      if (inst->isa(Opcode::BuildList) && unknownItems(inst->type))
        unsupported(*inst, "an empty list that nothing is appended to has "
                           "no item type in jit code (numba's typed list "
                           "needs one): append to it, or start it with an "
                           "item");
}

const Type *Inference::listElement(Instruction &inst, const std::string &cls,
                                   const Type *value) {
  const Type *&element = listElements_[cls];
  if (!element)
    element = types::none();
  if (!value)
    return element;
  if (!value->isNumber())
    unsupported(inst, "lists in jit code hold numbers (numba's typed list "
                      "of one number type), not a '" +
                          value->str() +
                          "'; keep arrays in a tuple, or numbers in a list");
  value = types::materialize(value);
  if (element->kind == TypeKind::None)
    return element = value;
  const Type *merged = types::promote(element, value);
  if (!merged)
    typingError(inst, "a list of " + element->str() + " cannot take a " +
                          value->str());
  return element = types::materialize(merged);
}

void Inference::requireReflectedItem(Instruction &inst, const Type *list,
                                     const Type *value) {
  if (reflectedListTakes(list->element, value))
    return;
  typingError(inst, "a list passed to a jit function keeps the type of its "
                    "items (" + list->element->str() +
                        ", numba's reflected list), so it cannot take a '" +
                        types::materialize(value)->str() +
                        "': pass a list of " +
                        types::materialize(value)->str() +
                        " items, or build a new list in the function");
}

const Type *Inference::inferMembership(Instruction &inst) {
  auto op = static_cast<ir::CompareOperator>(inst.index);
  if (op != ir::CompareOperator::In && op != ir::CompareOperator::NotIn)
    return nullptr;
  const Type *item = inst.operands[0]->type;
  const Type *container = inst.operands[1]->type;
  // Python compares the item with each element by ==, so the numbers
  // promote as == promotes them.
  bool numbers = container->kind == TypeKind::List ||
                 (container->kind == TypeKind::Tuple &&
                  std::all_of(container->elements.begin(),
                              container->elements.end(),
                              [](const Type *t) { return t->isNumber(); }));
  if (!numbers)
    unsupported(inst, "'in' in jit code and kernels tests membership of a "
                      "number in a list or a tuple of numbers, not in a '" +
                          container->str() +
                          "'; for an array a, write (a == x).any()");
  if (!item->isNumber())
    typingError(inst, "'in' of a list or tuple of numbers tests a number, "
                      "not a '" + item->str() + "'");
  return types::boolean();
}

const Type *Inference::inferListBuiltin(Instruction &inst,
                                        const std::string &name,
                                        const Type *list) {
  bool ordered = name == "min" || name == "max" || name == "sorted";
  if (name != "sum" && !ordered)
    return nullptr;
  bool reverse = name == "sorted" && inst.operands.size() == 3 &&
                 inst.name == "reverse";
  if ((inst.operands.size() != 2 || !inst.name.empty()) && !reverse)
    unsupported(inst, name + "() of a list in jit code takes the list " +
                          (name == "sorted" ? "and reverse= (no key=)"
                           : name == "sum"  ? "alone (no start)"
                                            : "alone (no key= or default=)"));
  if (reverse && !inst.operands[2]->type->isNumber())
    typingError(inst, "sorted()'s reverse= is a bool, not a '" +
                          inst.operands[2]->type->str() + "'");
  if (ordered && list->element->kind == TypeKind::Complex)
    typingError(inst, name + "() cannot order complex numbers");
  if (name == "sorted") // a new list of the same items (listClass: one class)
    return list;
  // sum() starts at Python's 0: bools add up as integers.
  if (name == "sum" && list->element->kind == TypeKind::Bool)
    return types::int64();
  return list->element;
}

const Type *Inference::inferList(Instruction &inst) {
  bool host = result_.kind == FunctionKind::Host;
  if (inst.isa(Opcode::BuildList)) {
    if (!host) {
      bool comprehension = inst.name.rfind("comprehension:", 0) == 0 ||
                           inst.name.find("<listcomp>") != std::string::npos;
      if (desc_.prebuiltPyIR) // a prange loop's kernel
        unsupported(inst, std::string("building or appending to a ") +
                              (comprehension ? "list comprehension"
                                             : "list") +
                              " inside a prange loop is not supported: the "
                              "loop's kernel allocates nothing; preallocate "
                              "an array before the loop (np.empty(n)) and "
                              "assign its elements");
      throw unsupportedConstruct(desc_.filename, inst.line,
                                 comprehension ? "list comprehension"
                                               : "list");
    }
    const Type *element = listElement(inst, inst.name, nullptr);
    for (Instruction *item : inst.operands)
      element = listElement(inst, inst.name, item->type);
    return types::list(element);
  }
  // The parfor stage passes a list a prange body reads as it would a
  // number; the kernel has no host memory to read it from.
  if (!host)
    for (const Instruction *operand : inst.operands)
      if (isListValue(operand))
        unsupported(inst, "a list is read inside a prange loop: copy it to "
                          "an array before the loop (a = np.array(xs)) and "
                          "read the array there");
  if (inst.isa(Opcode::Compare))
    return inferMembership(inst);
  if (inst.operands.empty() || !isListValue(inst.operands[0])) {
    // A call of a list's method, a builtin of a list or np.array(l).
    if (!inst.isa(Opcode::Call))
      return nullptr;
    const Type *callee = inst.operands[0]->type;
    if (callee->kind == TypeKind::Method &&
        callee->elements[0]->kind == TypeKind::List) {
      if (inst.operands.size() != 2 || !inst.name.empty())
        typingError(inst, "list.append() takes one value");
      Instruction *list = inst.operands[0]->operands[0];
      if (!list->type->name.empty()) {
        requireReflectedItem(inst, list->type, inst.operands[1]->type);
        return types::none();
      }
      std::string cls = listClass(list);
      if (cls.empty()) // out of a tuple, say
        unsupported(inst, "jit code appends to a list by the name it was "
                          "built or passed under, not to one taken out "
                          "of a tuple");
      listElement(inst, cls, inst.operands[1]->type);
      return types::none();
    }
    if (inst.operands.size() < 2 || !isListValue(inst.operands[1]) ||
        callee->kind != TypeKind::Function)
      return nullptr;
    const Type *list = inst.operands[1]->type;
    if (callee->name == "len") {
      if (inst.operands.size() != 2)
        typingError(inst, "len() takes one argument");
      return types::weakInt();
    }
    if (const Type *t = inferListBuiltin(inst, callee->name, list))
      return t;
    if (callee->name == "numpy.array" || callee->name == "numpy.asarray") {
      if (inst.operands.size() != 2 || !inst.name.empty())
        unsupported(inst, "np." + callee->name.substr(6) +
                              "() of a list in jit code takes the list "
                              "alone (no dtype): the array has the list's "
                              "item type; convert it with astype");
      return types::array(list->element, 1, 'C');
    }
    return nullptr;
  }
  const Type *list = inst.operands[0]->type;
  switch (inst.opcode) {
  case Opcode::GetAttr:
    if (inst.name != "append")
      unsupported(inst, "list." + inst.name +
                            " is not supported in jit code; a list takes "
                            "append, len(), indexing, iteration and "
                            "np.array()");
    return types::method(list, inst.name);
  case Opcode::GetItem:
  case Opcode::SetItem: {
    const Type *index = inst.operands[1]->type;
    if (index->kind != TypeKind::Int && index->kind != TypeKind::WeakInt &&
        index->kind != TypeKind::Bool)
      unsupported(inst, "a list in jit code is indexed by an integer, not "
                        "a '" + index->str() + "'");
    if (inst.isa(Opcode::GetItem))
      return list->element;
    const Type *value = inst.operands[2]->type;
    if (!list->name.empty())
      requireReflectedItem(inst, list, value);
    if (!value->isNumber() ||
        (list->element->kind != TypeKind::Complex &&
         (value->kind == TypeKind::Complex ||
          value->kind == TypeKind::WeakComplex)))
      typingError(inst, "cannot store a '" + value->str() +
                            "' into a list of " + list->element->str());
    return types::none();
  }
  case Opcode::GetIter:
    if (host)
      return types::sequenceIterator(list);
    return nullptr;
  default:
    return nullptr;
  }
}

} // namespace spirjit::infer
