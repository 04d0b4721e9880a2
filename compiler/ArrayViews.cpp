// Views in the array-expression stage (ArrayViews.h).
#include "compiler/ArrayViews.h"

#include <algorithm>

namespace spirjit::arrays {

Access ArrayViews::wholeArray(Instruction *array, const Type *type, int line) {
  Access a;
  a.base = array;
  auto known = temporaryExtents_.find(array);
  a.baseKey = (known != temporaryExtents_.end() ? "T" : "") + keyOf(array);
  a.fixed.assign(type->ndim, nullptr);
  a.fixedKeys.assign(type->ndim, "");
  for (int d = 0; d < type->ndim; ++d) {
    Access::Dim dim;
    dim.baseDim = d;
    dim.startKey = "0";
    if (known != temporaryExtents_.end()) {
      dim.length = known->second.first[d];
      dim.extentKey = known->second.second[d];
    } else {
      dim.length = extent(array, d, line);
      dim.extentKey = "shape(" + a.baseKey + "," + std::to_string(d) + ")";
    }
    a.dims.push_back(dim);
  }
  return a;
}

Access ArrayViews::accessOf(Instruction *value, int line) {
  const Type *type = value->type;
  for (auto a = aliases_.find(value); a != aliases_.end();
       a = aliases_.find(value))
    value = a->second;
  auto view = views_.find(value);
  if (view != views_.end())
    return view->second;
  return wholeArray(value, type, line);
}

Access ArrayViews::makeView(Instruction *array, Instruction *index, int line) {
  Access base = accessOf(array, line);
  std::vector<Instruction *> parts;
  if (index->isa(Opcode::BuildTuple)) {
    parts = index->operands;
  } else if (index->type->kind == TypeKind::Tuple) {
    // A tuple argument (a[t] = row): its integers, typed as the tuple's
    // elements for the code below.
    for (size_t i = 0; i < index->type->elements.size(); ++i) {
      Instruction *part = make(Opcode::TupleGet, {index}, line);
      part->index = static_cast<int64_t>(i);
      part->type = index->type->elements[i];
      parts.push_back(part);
    }
  } else {
    parts = {index};
  }
  auto kindOf = [](Instruction *part) { return part->type->kind; };
  // `...`: the full slices (nullptr parts) of the dimensions the other
  // parts leave.
  auto ellipsis = std::find_if(parts.begin(), parts.end(), [&](auto *p) {
    return kindOf(p) == TypeKind::Ellipsis;
  });
  if (ellipsis != parts.end()) {
    size_t named = static_cast<size_t>(
        std::count_if(parts.begin(), parts.end(), [&](auto *p) {
          return kindOf(p) != TypeKind::None &&
                 kindOf(p) != TypeKind::Ellipsis;
        }));
    size_t fill = base.dims.size() >= named ? base.dims.size() - named : 0;
    ellipsis = parts.erase(ellipsis);
    parts.insert(ellipsis, fill, nullptr);
  }
  Access view = base;
  view.dims.clear();
  size_t d = 0;
  for (size_t p = 0; p < parts.size() || d < base.dims.size(); ++p) {
    Instruction *part = p < parts.size() ? parts[p] : nullptr;
    if (part && kindOf(part) == TypeKind::None) {
      // np.newaxis: a dimension of extent 1 that walks no base dimension
      // (baseDim -1: stride 0).
      Access::Dim dim;
      dim.baseDim = -1;
      dim.step = 0;
      dim.length = integer(1, line);
      dim.startKey = "0";
      dim.extentKey = "1";
      view.dims.push_back(dim);
      continue;
    }
    if (d == base.dims.size())
      error(line, "too many indices for this array");
    const Access::Dim &from = base.dims[d++];
    bool isSlice = !part || part->isa(Opcode::Slice);
    auto startIn = [&](Instruction *offset, const std::string &offsetKey) {
      // from.start + offset * from.step, in the base's index space
      Instruction *scaled =
          from.stepValue
              ? binary(cur_, ir::BinaryOperator::Mul, offset, from.stepValue,
                       line)
          : from.step == 1 ? offset
                           : binary(cur_, ir::BinaryOperator::Mul, offset,
                                    integer(from.step, line), line);
      return std::make_pair(from.start ? binary(cur_, ir::BinaryOperator::Add,
                                                from.start, scaled, line)
                                       : scaled,
                            "(" + from.startKey + "+" + offsetKey + "*" +
                                from.stepKey() + ")");
    };
    if (!isSlice) {
      SPIRJIT_INTERNAL_CHECK(part->type->kind != TypeKind::Slice,
                             "a slice value that is not a slice");
      if (from.baseDim < 0)
        continue; // a new axis indexed: its one element, nowhere in the base
      Instruction *i = fixedIndex(part, from.length, line);
      auto [at, key] = startIn(i, keyOf(part));
      view.fixed[from.baseDim] = at;
      view.fixedKeys[from.baseDim] = key;
      continue;
    }
    Access::Dim dim;
    dim.baseDim = from.baseDim;
    Instruction *start = part ? part->operands[0] : nullptr;
    Instruction *stop = part ? part->operands[1] : nullptr;
    auto isNone = [](Instruction *v) {
      return !v || v->type->kind == TypeKind::None;
    };
    Instruction *stepPart =
        part && part->operands.size() == 3 && !isNone(part->operands[2])
            ? part->operands[2]
            : nullptr;
    // A literal step (the usual case) keeps the view's arithmetic folded;
    // a step known at run time (or a literal 0, NumPy's ValueError) takes
    // both of Python's rules and picks by its sign.
    bool literal = !stepPart || (stepPart->isa(Opcode::Const) &&
                                 stepPart->constant.kind == ConstValue::Kind::Int &&
                                 stepPart->constant.intValue != 0);
    int64_t step = stepPart && literal ? stepPart->constant.intValue : 1;
    std::string sKey = isNone(start) ? "0" : keyOf(start);
    std::string eKey = isNone(stop) ? "end" : keyOf(stop);
    using B = ir::BinaryOperator;
    Instruction *zero = integer(0, line);
    // Python's rule for a step of sign `forward`: (first index, length).
    auto bounds = [&](bool forward, Instruction *k) {
      Instruction *s, *e, *span;
      if (forward) {
        s = isNone(start) ? integer(0, line)
                          : sliceBound(start, from.length, line);
        e = isNone(stop) ? from.length : sliceBound(stop, from.length, line);
        span = binary(cur_, B::Sub, e, s, line); // + k - 1, // k
        span = binary(cur_, B::Add, span,
                      binary(cur_, B::Sub, k, integer(1, line), line), line);
      } else {
        s = isNone(start) ? binary(cur_, B::Sub, from.length, integer(1, line),
                                   line)
                          : sliceBoundBack(start, from.length, line);
        e = isNone(stop) ? integer(-1, line)
                         : sliceBoundBack(stop, from.length, line);
        span = binary(cur_, B::Sub, s, e, line); // - k - 1, // -k
        span = binary(cur_, B::Sub, span,
                      binary(cur_, B::Add, k, integer(1, line), line), line);
        k = binary(cur_, B::Sub, zero, k, line);
        // An empty view's first index may be -1: it reads nothing, but
        // its data pointer stays inside the array.
        s = builtin(cur_, "max", {s, zero}, line);
      }
      Instruction *length = builtin(cur_, "max", {span, zero}, line);
      length = binary(cur_, B::FloorDiv, length, k, line);
      return std::make_pair(s, length);
    };
    Instruction *s, *length;
    if (literal && step == 1) {
      s = isNone(start) ? integer(0, line)
                        : sliceBound(start, from.length, line);
      Instruction *e =
          isNone(stop) ? from.length : sliceBound(stop, from.length, line);
      length = builtin(cur_, "max", {binary(cur_, B::Sub, e, s, line), zero},
                       line);
    } else if (literal) {
      std::tie(s, length) = bounds(step > 0, integer(step, line));
    } else {
      Instruction *k = stepPart;
      check(compare(cur_, ir::CompareOperator::Ne, k, zero, line),
            "slice step cannot be zero", k, zero, line);
      auto [s1, l1] = bounds(true, k);
      auto [s2, l2] = bounds(false, k);
      // forward ? first : second, as integer arithmetic
      Instruction *f = builtin(
          cur_, "int",
          {compare(cur_, ir::CompareOperator::Gt, k, zero, line)}, line);
      auto pick = [&](Instruction *a, Instruction *b) {
        return binary(cur_, B::Add, b,
                      binary(cur_, B::Mul, f, binary(cur_, B::Sub, a, b, line),
                             line),
                      line);
      };
      s = pick(s1, s2);
      length = pick(l1, l2);
    }
    dim.length = length;
    auto [at, key] = startIn(s, sKey);
    dim.start = at;
    dim.startKey = key;
    if (literal && !from.stepValue) {
      dim.step = from.step * step;
    } else {
      Instruction *k = literal ? integer(step, line) : stepPart;
      Instruction *outer =
          from.stepValue ? from.stepValue : integer(from.step, line);
      dim.stepValue = binary(cur_, B::Mul, outer, k, line);
    }
    dim.extentKey = "len(" + from.extentKey + "," + sKey + "," + eKey + "," +
                    (literal ? std::to_string(step) : "s" + keyOf(stepPart)) +
                    ")";
    view.dims.push_back(dim);
  }
  return view;
}

Instruction *ArrayViews::reshape(Instruction *call, int line) {
  bool method = call->operands[0]->type->kind == TypeKind::Method;
  Instruction *array =
      method ? call->operands[0]->operands[0] : call->operands[1];
  std::vector<Instruction *> extents(call->operands.begin() + (method ? 1 : 2),
                                     call->operands.end());
  if (extents.size() == 1 && extents[0]->type->kind == TypeKind::Tuple) {
    // (3, -1) is a constant; (n, m) a tuple built; a.shape a value.
    Instruction *tuple = extents[0];
    extents.clear();
    for (size_t i = 0; i < tuple->type->elements.size(); ++i) {
      if (tuple->isa(Opcode::Const)) {
        extents.push_back(integer(tuple->constant.items.at(i).intValue, line));
      } else if (tuple->isa(Opcode::BuildTuple)) {
        extents.push_back(tuple->operands[i]);
      } else {
        Instruction *e = make(Opcode::TupleGet, {tuple}, line);
        e->index = static_cast<int64_t>(i);
        extents.push_back(e);
      }
    }
  }
  Instruction *size = make(Opcode::GetAttr, {array}, line);
  size->name = "size";
  Instruction *known = integer(1, line);
  int unknown = -1;
  for (size_t i = 0; i < extents.size(); ++i) {
    Instruction *e = extents[i];
    if (e->isa(Opcode::Const) && e->constant.kind == ConstValue::Kind::Int &&
        e->constant.intValue == -1) {
      if (unknown >= 0)
        error(line, "reshape() can only take one unknown (-1) extent");
      unknown = static_cast<int>(i);
      continue;
    }
    known = binary(cur_, ir::BinaryOperator::Mul, known, e, line);
  }
  if (unknown >= 0) {
    Instruction *rest =
        binary(cur_, ir::BinaryOperator::FloorDiv, size, known, line);
    extents[static_cast<size_t>(unknown)] = rest;
    known = binary(cur_, ir::BinaryOperator::Mul, known, rest, line);
  }
  check(compare(cur_, ir::CompareOperator::Eq, known, size, line),
        "cannot reshape array of size {got} into a shape of {expected} "
        "elements",
        size, known, line);
  std::vector<Instruction *> operands = {array};
  operands.insert(operands.end(), extents.begin(), extents.end());
  return make(Opcode::Reshape, operands, line);
}

Access ArrayViews::transposed(Instruction *array, int line) {
  Access view = accessOf(array, line);
  std::reverse(view.dims.begin(), view.dims.end());
  return view;
}

Instruction *ArrayViews::arrayValue(Instruction *a, int line) {
  if (!views_.count(a))
    return a;
  auto made = viewValues_.find(a);
  if (made != viewValues_.end())
    return made->second;
  return viewValues_[a] = viewValue(a, line);
}

Instruction *ArrayViews::viewValue(const Instruction *v, int line) {
  const Access &a = views_.at(v);
  std::vector<Instruction *> operands = {a.base};
  for (size_t b = 0; b < a.fixed.size(); ++b) {
    Instruction *offset = a.fixed[b];
    for (const Access::Dim &dim : a.dims)
      if (!offset && dim.baseDim == static_cast<int>(b))
        offset = dim.start;
    operands.push_back(offset ? offset : integer(0, line));
  }
  for (const Access::Dim &dim : a.dims) {
    operands.push_back(dim.length);
    operands.push_back(integer(dim.baseDim, line));
    operands.push_back(dim.stepValue ? dim.stepValue
                                     : integer(dim.step, line));
  }
  return make(Opcode::View, operands, line);
}

Instruction *ArrayViews::item(const Instruction *call, int line) {
  Instruction *original = call->operands[0]->operands[0];
  Instruction *array = arrayValue(original, line);
  Instruction *size = make(Opcode::GetAttr, {array}, line);
  size->name = "size";
  Instruction *one = integer(1, line);
  check(compare(cur_, ir::CompareOperator::Eq, size, one, line),
        "can only convert an array of size 1 to a Python scalar", size, one,
        line);
  std::vector<Instruction *> zeros;
  for (int d = 0; d < original->type->ndim; ++d)
    zeros.push_back(integer(0, line));
  return make(Opcode::GetItem, {array, make(Opcode::BuildTuple, zeros, line)},
              line);
}

} // namespace spirjit::arrays
