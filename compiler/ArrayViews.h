// Views in the array-expression stage (ArrayExpressions.h states the
// stage's contract): how a statement reads an array (a whole array, a
// slice, a transpose: an Access into its real base), the values a view or
// a reshape is when code uses it as an array, and which array a name
// holds. The stage's Rewriter builds on it.
#pragma once

#include "compiler/ArrayExpressionParts.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace spirjit::arrays {

class ArrayViews : protected PyIRBuilder {
protected:
  explicit ArrayViews(std::string filename)
      : PyIRBuilder(std::move(filename)) {}

  /// The access of a whole array (a value of the host, or a temporary).
  Access wholeArray(Instruction *array, const Type *type, int line);

  /// The access an array value reads: a view, a temporary, or an array.
  Access accessOf(Instruction *value, int line);

  /// array[index], where array is an array or a view: a view of its base.
  Access makeView(Instruction *array, Instruction *index, int line);

  /// a.reshape(...), np.reshape(a, shape): the same memory at new extents
  /// (C order), after NumPy's check that they hold its elements; one
  /// extent may be -1, the one that makes them.
  Instruction *reshape(Instruction *call, int line);

  /// a.T, a.transpose(), np.transpose(a): the view of the same elements
  /// with its dimensions in reverse order.
  Access transposed(Instruction *array, int line);

  /// The array value `a` names where a loop indexes it by computed
  /// indices: a view's value (made at the cursor the first time), else
  /// the array (a stored expression's temporary, once operands are mapped).
  Instruction *arrayValue(Instruction *a, int line = 0);

  /// `view` (base, offset per base dimension, then per view dimension its
  /// length, base dimension and step): the lowering makes the array value
  /// (first element, extents, strides) of view `v` of its real base.
  Instruction *viewValue(const Instruction *v, int line);

  /// a.item(): the one element of an array of size 1, else NumPy's
  /// ValueError.
  Instruction *item(const Instruction *call, int line);

  std::map<const Instruction *, Access> views_;
  /// The `view` of each slice some instruction uses as a value.
  std::map<const Instruction *, Instruction *> viewValues_;
  /// A value that names another array: a stored expression's temporary,
  /// or a += b's a.
  std::map<const Instruction *, Instruction *> aliases_;
  /// The extents (and their keys) of each temporary a statement made.
  std::map<const Instruction *,
           std::pair<std::vector<Instruction *>, std::vector<std::string>>>
      temporaryExtents_;
};

} // namespace spirjit::arrays
