// spirjit's type system.
//
// Types are interned: two equal types are the same pointer, so they compare
// with ==. Scalars follow NumPy (bool, int8..int64, uint8..uint64, float32,
// float64, complex64, complex128). Python literals and Python-int values
// (range elements, ids, shapes) are "weak" (NEP 50): they take the type of
// the typed operand they meet, and become int64 / float64 / complex128 when
// they meet only other weak values.
#pragma once

#include <string>
#include <vector>

namespace spirjit {

/// Where the memory an array or an AtomicRef refers to lives. Only the
/// target numbers the spaces (Target::addressSpace); kapi.AddressSpace
/// values written in kernels become a MemorySpace in type inference.
enum class MemorySpace {
  Global,  // kernel arguments: device memory the host allocated
  Local,   // work-group memory: a LocalAccessor, the group scratch
  Private, // one work-item's memory: a PrivateArray
  Generic, // any of the three, resolved at run time
};

enum class TypeKind {
  Bool,
  Int,      // bits, isSigned
  Float,    // bits
  Complex,  // bits of each part
  WeakInt,  // a Python int
  WeakFloat,
  WeakComplex,
  None,
  Array,    // element, ndim, layout
  Tuple,    // elements; a namedtuple's also name (its class's key,
            // _describe.namedtuple_key) and fields (numba's NamedTuple:
            // a tuple whose type knows its class and field names)
  Item,     // kapi.Item of ndim dimensions
  NdItem,   // kapi.NdItem of ndim dimensions
  Group,    // kapi.Group of ndim dimensions
  AtomicRef, // element; memorySpace of the referenced memory
  Range,    // the value of range(...): elements are weak ints; with ndim,
            // pndindex(...) over ndim extents
  RangeIterator,
  Module,   // name
  Function, // name: a builtin, math or NumPy function, a kapi class;
            // a namedtuple class: "namedtuple:<key>" and its fields
  Method,   // name, receiver in elements[0]
  DTypeClass, // element: np.float32 and friends, callable as casts
  Slice,    // start:stop:step in an index; host code only, gone after the
            // array-expression stage
  Ellipsis, // `...` in an index, as Slice
  List,     // element: a list that changes in jit host code (numba's typed
            // list), living in host memory; None element while unknown.
            // name "reflected": a list argument, whose element type is its
            // items' and whose changes go back to the caller's list
};

struct Type {
  TypeKind kind;
  int bits = 0;
  bool isSigned = false;
  const Type *element = nullptr; // Array element, DTypeClass target
  int ndim = 0;
  char layout = 'A'; // Array: 'C', 'F' or 'A'
  /// Array and AtomicRef: where the memory lives.
  MemorySpace memorySpace = MemorySpace::Global;
  std::vector<const Type *> elements; // Tuple; Method receiver
  std::string name;
  std::vector<std::string> fields; // a namedtuple's, or its class's

  bool isNamedTuple() const { return kind == TypeKind::Tuple && !name.empty(); }
  bool isNamedTupleClass() const {
    return kind == TypeKind::Function && name.rfind("namedtuple:", 0) == 0;
  }

  bool isInteger() const { return kind == TypeKind::Int; }
  bool isFloat() const { return kind == TypeKind::Float; }
  bool isNumber() const {
    return kind == TypeKind::Bool || kind == TypeKind::Int ||
           kind == TypeKind::Float || kind == TypeKind::Complex || isWeak();
  }
  bool isWeak() const {
    return kind == TypeKind::WeakInt || kind == TypeKind::WeakFloat ||
           kind == TypeKind::WeakComplex;
  }
  bool isScalar() const { return isNumber(); }
  /// NumPy's name ("float32"), or a readable one for other kinds.
  std::string str() const;
};

namespace types {
const Type *boolean();
const Type *integer(int bits, bool isSigned);
const Type *int64();
const Type *floating(int bits);
const Type *complex(int bits);
const Type *weakInt();
const Type *weakFloat();
const Type *weakComplex();
const Type *none();
const Type *array(const Type *element, int ndim, char layout,
                  MemorySpace memorySpace = MemorySpace::Global);
/// Whether a declared signature's type `listed` takes an argument of type
/// `given`: the same type, or an array of the same element, rank and
/// memory where `listed` has any layout ('A', numba's "[:]", which takes
/// C, F and strided arrays).
bool signatureTakes(const Type *listed, const Type *given);
const Type *ndItem(int ndim);
const Type *group(int ndim);
/// kapi.SubGroup of an NdItem of `ndim` dimensions: a Group-kind type named
/// "SubGroup" (compile-time only, as a Group).
const Type *subGroup(int ndim);
bool isSubGroup(const Type *t);
const Type *atomicRef(const Type *element, MemorySpace memorySpace);
const Type *tuple(std::vector<const Type *> elements);
/// An instance of the namedtuple class `key` (two classes with the same
/// fields are different types, as in numba), and that class itself,
/// callable in jit code.
const Type *namedTuple(const std::string &key, std::vector<std::string> fields,
                       std::vector<const Type *> elements);
const Type *namedTupleClass(const std::string &key,
                            std::vector<std::string> fields);
/// The name Python prints for a namedtuple type's class (its __name__).
std::string namedTupleClassName(const Type *namedTuple);
/// The same tuple with other elements: a namedtuple stays one of its class.
const Type *withElements(const Type *tuple, std::vector<const Type *> elements);
const Type *item(int ndim);
/// range(...) (ndim 0), or pndindex(...) over ndim extents, whose
/// iterator yields tuples of ndim indices.
const Type *range(int ndim = 0);
const Type *rangeIterator(int ndim = 0);
/// An iterator over an array in jit host code (`for x in a`): its
/// elements, or its rows (compiler/SequenceLoops.h rewrites the loop); or
/// over `sequences`: enumerate(a) or zip(a, b, ...) of arrays, a Range
/// named "enumerate" or "zip" whose elements are the arrays' types.
const Type *sequenceIterator(const Type *sequence);
const Type *sequences(const std::string &name,
                      std::vector<const Type *> arrays);
/// The one type a loop over `tuple` gives each element: numbers promoted
/// to one, or one array type; nullptr when there is none (or no element).
const Type *uniformElement(const Type *tuple);
const Type *module(const std::string &name);
const Type *function(const std::string &name);
const Type *method(const Type *receiver, const std::string &name);
const Type *dtypeClass(const Type *element);
const Type *slice();
const Type *ellipsis();
/// A list of `element`s in jit host code (compiler/infer/InferLists.cpp).
const Type *list(const Type *element);
/// A Python list passed to a jit function (numba's reflected list).
const Type *reflectedList(const Type *element);

/// A NumPy dtype name ("float32", "int64", "bool", ...) or one of NumPy's
/// aliases of C's types ("intp", "int_", "double", "intc", ...), or nullptr.
/// Kernels, jit functions and signatures all read NumPy's names here.
const Type *fromDTypeName(const std::string &name);

/// The bytes of one element of an array of `element`s (NumPy's itemsize:
/// a bool is one byte).
int itemsize(const Type *element);

/// The type a weak type becomes when nothing decides otherwise.
const Type *materialize(const Type *type);

/// NumPy 2's promotion (np.result_type with NEP 50 weak scalars), or
/// nullptr when the two types have no common type.
const Type *promote(const Type *a, const Type *b);

/// Parses a numba-style signature: "(float32[::1], int64)" gives the
/// argument types; "float64(float64)" also gives a return type. Throws
/// std::invalid_argument with a message saying what is wrong.
struct Signature {
  const Type *returnType = nullptr;
  std::vector<const Type *> arguments;
};
Signature parseSignature(const std::string &text);
/// The signature text of argument types, as parseSignature reads it.
std::string formatArguments(const std::vector<const Type *> &arguments);
} // namespace types

} // namespace spirjit
