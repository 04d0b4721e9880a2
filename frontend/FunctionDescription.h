// A plain description of a Python function: everything the compiler needs,
// nothing that ties it to the running interpreter. The Python bindings fill
// it from a code object; tests read it from fixture files, so the compiler
// core never depends on the interpreter's version or its C API.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spirjit {

namespace ir {
class Function;
}

/// A constant from co_consts, a module-level number or a closure value.
struct ConstValue {
  enum class Kind { None, Bool, Int, Float, Complex, Str, Tuple, Code, Other };
  Kind kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;
  double floatValue = 0, imagValue = 0;
  /// Str: the text; Code: the code object's name; Other: the Python type name.
  std::string text;
  std::vector<ConstValue> items; // Tuple

  static ConstValue none() { return {}; }
  static ConstValue ofBool(bool v) {
    ConstValue c;
    c.kind = Kind::Bool;
    c.boolValue = v;
    return c;
  }
  static ConstValue ofInt(int64_t v) {
    ConstValue c;
    c.kind = Kind::Int;
    c.intValue = v;
    return c;
  }
  static ConstValue ofFloat(double v) {
    ConstValue c;
    c.kind = Kind::Float;
    c.floatValue = v;
    return c;
  }
  static ConstValue ofComplex(double re, double im) {
    ConstValue c;
    c.kind = Kind::Complex;
    c.floatValue = re;
    c.imagValue = im;
    return c;
  }
  static ConstValue ofText(Kind kind, std::string text) {
    ConstValue c;
    c.kind = kind;
    c.text = std::move(text);
    return c;
  }
  bool isNumber() const {
    return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Float ||
           kind == Kind::Complex;
  }
  std::string str() const;
};

/// What a global name (or a closure variable) referred to when the function
/// was compiled. Values are frozen at compile time.
struct GlobalValue {
  enum class Kind {
    Number,     // a Python or NumPy scalar: `value`
    Module,     // a module: `name` is its __name__ ("math", "numpy")
    Builtin,    // a builtin function: `name` ("range", "abs", ...)
    Object,     // a known library object: `name` is its qualified name
                // ("numpy.float32", "spirjit.kernel_api.Item", "math.sqrt")
    DeviceFunction, // a @spirjit.device_func: `name` is its key in the
                    // deviceFunctions table of the function compiled
    Unknown,    // anything else: `name` is its Python type name; a
                // string's text is in `value` (getattr's name, nothing else)
    NamedTupleClass, // a collections.namedtuple or typing.NamedTuple
                     // class: `name` is its key (its instances' type
                     // name), `value` the tuple (field names, defaults of
                     // the last fields)
    Array, // a NumPy array, frozen as numba freezes one: `dtype`,
           // `shape`, and its elements' bytes in C order in `data`
  };
  Kind kind = Kind::Unknown;
  std::string name;
  ConstValue value;
  /// For Number: the NumPy dtype name when it is a NumPy scalar ("float32"),
  /// empty for Python scalars (which are weakly typed). For Array: its
  /// dtype's name.
  std::string dtype;
  /// For Array: its extents and its elements' bytes (C order).
  std::vector<int64_t> shape;
  std::string data;
};

/// Source line of a range of bytecode offsets: co_lines() of CPython.
struct LineRange {
  int start = 0, end = 0, line = 0;
};

struct FunctionDescription {
  int pythonMajor = 3, pythonMinor = 11;
  std::string name, qualifiedName, filename;
  int firstLine = 0;
  int argCount = 0;
  std::vector<uint8_t> code;
  std::vector<ConstValue> consts;
  std::vector<std::string> names, varnames, cellvars, freevars;
  std::vector<LineRange> lines;
  /// A non-empty exception table means try/except or with in 3.11+.
  bool hasExceptionTable = false;
  /// co_flags: whether the function is a generator or a coroutine.
  int codeFlags = 0;
  /// Every name in `names` that resolves to a global or builtin.
  std::map<std::string, GlobalValue> globals;
  /// One value per entry of `freevars`.
  std::vector<GlobalValue> closure;
  /// What attributes of a global module other than math's and numpy's
  /// were, by "module.attribute", where the describing code knew them (a
  /// library re-exporting np.add or spirjit.empty under its own name).
  std::map<std::string, GlobalValue> moduleMembers;
  /// NumPy functions and array methods written in the jit language
  /// (python/spirjit/_jit_library.py) that this function's names may call:
  /// "numpy.std#1" or "method:std#1" (the name, then the number of
  /// arguments, an array method's array counted) -> the jit function's key
  /// in deviceFunctions. Host code inlines them (compiler/InlineJit.h).
  /// Operations of Python's syntax that the library writes
  /// ("spirjit.mask_index#2") are here only where the compiler asked for
  /// them (LibraryOperationsNeeded).
  std::map<std::string, std::string> library;
  /// The annotation of each parameter that has one, resolved like a global.
  std::map<std::string, GlobalValue> annotations;
  /// For device functions: the signatures they accept, numba-style
  /// ("float64(float64, int64)"); empty means any.
  std::vector<std::string> signatures;
  /// A @spirjit.jit function (in the deviceFunctions table because another
  /// jit function calls it): host code inlines it (compiler/InlineJit.h).
  bool jitFunction = false;
  /// The Python defaults of the last parameters (fn.__defaults__), frozen
  /// as constants: a call from jit code that leaves them out takes them.
  std::vector<ConstValue> defaults;
  /// A @spirjit.vectorize's scalar function: host code applies it to
  /// arrays element by element (compiler/ArrayExpressions.h).
  bool elementwise = false;
  /// The code objects among `consts` (lambdas and nested defs), described
  /// with this function's globals, by key ("code<index in consts>"; the jit
  /// inliner renames those it copies into a caller). Their closure values
  /// are not frozen: the inliner takes them from the `function` instruction
  /// that makes the function (compiler/InlineJit.h).
  std::map<std::string, std::shared_ptr<FunctionDescription>> nestedCode;
  /// Every device function reachable from the function being compiled, by
  /// key (filled in the top-level description only).
  std::map<std::string, std::shared_ptr<FunctionDescription>> deviceFunctions;
  /// A kernel the compiler made (the parfor stage outlines prange loops):
  /// its untyped pyir, which stands in for the bytecode.
  std::shared_ptr<const ir::Function> prebuiltPyIR;
  /// For such a kernel: what it was made from, printed where the bytecode
  /// stage would be (the array-expression graph of compiler/ArrayKernel).
  std::string prebuiltOrigin;
  /// For such a kernel: the parameters (by index, the item being 0) the
  /// host computed never to be negative (a slice's start): their uses as
  /// indices need no wrap-around (compiler/NonNegative.h).
  std::vector<int> nonNegativeParameters;

  /// The source line of the instruction at byte offset `offset`.
  int lineAt(int offset) const;
  /// Everything that decides the compiled code, as deterministic text: the
  /// bytecode, constants, names, frozen globals, closure values,
  /// annotations and device functions (not line numbers). A disk cache key.
  std::string fingerprint() const;
};

/// Thrown by the host pipeline (compileHost) where the code needs operations
/// of Python's syntax that the jit library writes (`operations`: "mask_index"
/// for a[mask], compiler/MaskReads.h) and the description lacks their
/// library entries. Only types tell that `a[x]` reads through a boolean
/// mask, and describing the library's entry costs every jit function's first
/// call 1.5-2 ms, so a description has it only when the compiler asks: the
/// caller describes the function again with `operations`
/// (python/spirjit/_describe.py) and compiles that. Not an error: a caller
/// that lets it through has a bug.
struct LibraryOperationsNeeded : std::exception {
  explicit LibraryOperationsNeeded(std::vector<std::string> operations)
      : operations(std::move(operations)) {}
  const char *what() const noexcept override {
    return "the host code needs the jit library's operations, which its "
           "caller did not describe (this is a bug in spirjit, please report "
           "it)";
  }
  std::vector<std::string> operations;
};

/// The key under which a stage of the compiler adds a global of its own to
/// `FunctionDescription::globals` (a builtin its generated code calls, when
/// the user's global of that name is something else): the prefix is
/// spirjit's, a name user code does not take.
inline std::string generatedGlobalName(const std::string &name) {
  return "__spirjit_" + name;
}

/// Adds the global `name` of `kind` (a builtin's or library object's name
/// `value`) to `description` under generatedGlobalName(name); returns that
/// key, the name of the `global` instruction that reads it.
inline std::string addGeneratedGlobal(FunctionDescription &description,
                                      const std::string &name,
                                      GlobalValue::Kind kind,
                                      const std::string &value) {
  std::string key = generatedGlobalName(name);
  GlobalValue g;
  g.kind = kind;
  g.name = value;
  description.globals[key] = g;
  return key;
}

} // namespace spirjit
