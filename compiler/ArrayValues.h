// An array expression's value at one index, as untyped pyir: the one
// emitter of element code for both array layers. arrayKernel() writes
// DeviceArray graphs with it (ArrayKernel.h), and the array-expression
// stage writes each jit statement's graph with it into the statement's
// prange loop body (ArrayExpressions.h).
//
// Contract: writes at the cursor of `fn`, which it moves when a value
// branches (np.where); Apply means `np.<name>(...)` on the elements, as in
// a user's kernel (the graph's own `copy`, `where`, `real` and `imag` are
// written as the element, a select and attribute reads, and `call` calls
// its first operand, a function, on the others); Cast is `np.<dtype>(x)`
// (`x != 0` for bool); Index is sum(id[d] * strides[d]) as int64. How a
// Load's element, a Scalar's value and a Function are read is the
// caller's: a kernel parameter indexed at the launch's ids, a kernel
// parameter, and a global naming a device function of the kernel; or a
// view of a jit function's array at its loop indices, a host value, and
// the host's function copied into the loop. A Load with an operand reads
// its array at that index instead (a gather, a[idx]).
#pragma once

#include "compiler/ArrayKernel.h"
#include "frontend/PyIR.h"

#include <functional>

namespace spirjit {

struct ArrayOp;

class ArrayValueWriter {
public:
  using Value = ArrayExpression::Value;
  /// A library object by qualified name ("numpy.sqrt"), as a global at
  /// the cursor.
  using Object = std::function<ir::Instruction *(const std::string &)>;
  /// A Load's element, a Scalar's value or a Function, at the cursor,
  /// given the elements of its operands (a gather's index).
  using Read = std::function<ir::Instruction *(
      const Value &, const std::vector<ir::Instruction *> &)>;

  ArrayValueWriter(ir::Function &fn, ir::Block *&cursor, int line,
                   Object object)
      : fn_(fn), cur_(cursor), line_(line), object_(std::move(object)) {}

  /// Writes every value of `e` (each once) and returns its result's.
  /// `ids` are the iteration space's indices (Index reads them).
  ir::Instruction *value(const ArrayExpression &e,
                         const std::vector<ir::Instruction *> &ids,
                         const Read &load, const Read &scalar,
                         const Read &function);

  ir::Instruction *cast(ir::Instruction *v, const std::string &dtype);
  ir::Instruction *apply(const std::string &function,
                         const std::vector<ir::Instruction *> &operands);
  /// `yes if condition else no`, both computed already.
  ir::Instruction *select(ir::Instruction *condition, ir::Instruction *yes,
                          ir::Instruction *no);

private:
  ir::Instruction *make(ir::Opcode op, std::vector<ir::Instruction *> operands);

  ir::Function &fn_;
  ir::Block *&cur_;
  int line_;
  Object object_;
};

/// The ufunc (ArrayOps.def) that a pyir operator means on array elements
/// (BinaryOp Add: add; Compare Lt: less; UnaryOp Neg: negative), or
/// nullptr (`@`, `not`, `is`): the inverse of ufuncOperator().
const ArrayOp *ufuncOfOperator(ir::Opcode opcode, int64_t op);

} // namespace spirjit
