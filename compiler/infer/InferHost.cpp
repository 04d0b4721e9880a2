// What only host code (a jit function's driver) may call: NumPy's and
// spirjit's array constructors. `prange` is typed as `range` everywhere
// (InferMath.cpp); the parfor stage decides what a prange loop becomes.
#include "compiler/infer/Inference.h"

#include "compiler/RandomDraws.h"

namespace spirjit::infer {

namespace {

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace
} // namespace spirjit::infer

namespace spirjit {
bool isArrayConstructor(const std::string &name) {
  static const std::set<std::string> names = {
      "empty", "zeros", "ones", "full",
      "empty_like", "zeros_like", "ones_like", "full_like"};
  for (const char *module : {"numpy.", "spirjit."})
    if (name.compare(0, std::strlen(module), module) == 0 &&
        names.count(name.substr(std::strlen(module))))
      return true;
  return name == "numpy.arange";
}
} // namespace spirjit

namespace spirjit::infer {

const Type *Inference::inferArrayConstructor(Instruction &inst,
                                             const std::string &name) {
  std::string shortName = name.substr(name.find('.') + 1);
  if (result_.kind != FunctionKind::Host)
    return inferPrivateConstructor(inst, name);
  if (shortName == "arange")
    return inferArange(inst);
  bool like = endsWith(shortName, "_like");
  bool full = shortName.compare(0, 4, "full") == 0;
  bool ours = name.compare(0, 8, "spirjit.") == 0;
  std::vector<std::string> params = {like ? "a" : "shape"};
  if (full)
    params.push_back("fill_value");
  params.push_back("dtype");
  size_t dtypeAt = params.size() - 1;
  // spirjit's constructors also take where the array lives: device= (a
  // filter string, or a Device argument of the jit function), its
  // sycl_queue= spelling, and usm_type=. The lowering reads them from
  // their types (hostPlacement).
  if (ours)
    for (const char *p : {"device", "usm_type", "sycl_queue"})
      params.push_back(p);
  std::vector<const Instruction *> args =
      positionalArguments(inst, params, (ours ? "spirjit." : "np.") + shortName);
  result_.callArguments[&inst] = args;
  if (!args[0])
    typingError(inst, "np." + shortName + "() needs its " + params[0]);
  if (full && !args[1])
    typingError(inst, "np." + shortName + "() needs its fill_value");
  if (ours) {
    const Instruction *device = args[dtypeAt + 1];
    const Instruction *usm = args[dtypeAt + 2];
    const Instruction *queue = args[dtypeAt + 3];
    if (device && queue)
      typingError(inst, "spirjit." + shortName +
                            "() takes device= or sycl_queue=, not both");
    for (const Instruction *where : {device, queue})
      if (where && !(where->type->kind == TypeKind::Function &&
                     (where->type->name == "spirjit.Device" ||
                      where->type->name.compare(0, 3, "op:") == 0)))
        typingError(inst, "spirjit." + shortName +
                              "()'s device must be a filter string such as "
                              "'opencl:cpu:0' or a Device argument of the "
                              "jit function, not '" +
                              where->type->str() + "'");
    if (usm) {
      const std::string &t = usm->type->name;
      if (usm->type->kind != TypeKind::Function || t.compare(0, 3, "op:") ||
          (t != "op:device" && t != "op:shared" && t != "op:host"))
        typingError(inst, "spirjit." + shortName +
                              "()'s usm_type must be 'device', 'shared' or "
                              "'host', known when the function compiles");
    }
  }
  const Instruction *dtypeArg = args[dtypeAt];
  const Type *element = nullptr;
  if (dtypeArg) {
    const Type *t = dtypeArg->type;
    if (t->kind != TypeKind::DTypeClass)
      typingError(inst, "np." + shortName +
                            "()'s dtype must be a NumPy type such as "
                            "np.float32 or a.dtype, not '" +
                            t->str() + "'");
    element = t->element;
  }
  const Type *shape = args[0]->type;
  int ndim = 0;
  if (like) {
    if (shape->kind != TypeKind::Array)
      typingError(inst, "np." + shortName + "() needs an array, not '" +
                            shape->str() + "'");
    ndim = shape->ndim;
    if (!element)
      element = shape->element;
  } else if (shape->kind == TypeKind::Tuple) {
    for (const Type *e : shape->elements)
      requireInteger(inst, e, "an extent of np." + shortName + "()'s shape");
    ndim = static_cast<int>(shape->elements.size());
  } else {
    requireInteger(inst, shape, "np." + shortName + "()'s shape");
    ndim = 1;
  }
  if (full && !args[1]->type->isNumber())
    typingError(inst, "np." + shortName + "()'s fill_value must be a number");
  if (!element)
    element = full ? types::materialize(args[1]->type) : types::floating(64);
  return types::array(element, ndim, 'C');
}

const Type *Inference::inferPrivateConstructor(Instruction &inst,
                                               const std::string &name) {
  // In a kernel (a prange body is one), np.empty/zeros/ones/full of a
  // constant shape is each work-item's own array, as kapi.PrivateArray:
  // numba's per-iteration arrays in a parallel loop. Nothing else can be
  // allocated there.
  std::string shortName = name.substr(name.find('.') + 1);
  bool full = shortName == "full";
  if (name.compare(0, 6, "numpy.") != 0 ||
      !(full || shortName == "empty" || shortName == "zeros" ||
        shortName == "ones"))
    unsupported(inst, "np." + shortName +
                          "() allocates memory, which a kernel cannot; "
                          "allocate the array before the launch and pass it "
                          "in (in a kernel, np.zeros/empty/ones/full of a "
                          "constant shape, or kapi.PrivateArray, is "
                          "per-item memory)");
  std::vector<std::string> params = {"shape"};
  if (full)
    params.push_back("fill_value");
  params.push_back("dtype");
  std::vector<const Instruction *> args =
      positionalArguments(inst, params, "np." + shortName);
  result_.callArguments[&inst] = args;
  if (!args[0] || (full && !args[1]))
    typingError(inst, "np." + shortName + "() needs its " +
                          (args[0] ? "fill_value" : "shape"));
  std::string what = "inside a kernel or a prange loop, the shape of np." +
                     shortName +
                     "() (each work-item's own array) must be a constant; "
                     "an extent";
  const Instruction *shape = args[0];
  int ndim = 1;
  if (shape->type->kind == TypeKind::Tuple) {
    if (!shape->isa(Opcode::BuildTuple))
      typingError(inst, what + " tuple must be written out");
    ndim = static_cast<int>(shape->operands.size());
    for (const Instruction *e : shape->operands)
      if (constantInt(inst, e, what, 0) <= 0)
        typingError(inst, what + " must be positive");
  } else if (constantInt(inst, shape, what, 0) <= 0) {
    typingError(inst, what + " must be positive");
  }
  if (ndim < 1 || ndim > 3)
    typingError(inst, "np." + shortName + "() in a kernel makes arrays of "
                                          "1 to 3 dimensions");
  const Type *element = nullptr;
  if (const Instruction *dtype = args[params.size() - 1]) {
    if (dtype->type->kind != TypeKind::DTypeClass)
      typingError(inst, "np." + shortName +
                            "()'s dtype must be a NumPy type such as "
                            "np.float32, not '" +
                            dtype->type->str() + "'");
    element = dtype->type->element;
  }
  if (full && !args[1]->type->isNumber())
    typingError(inst, "np.full()'s fill_value must be a number");
  if (!element)
    element = full ? types::materialize(args[1]->type) : types::floating(64);
  return types::array(element, ndim, 'C', MemorySpace::Private);
}

const Type *Inference::inferArange(Instruction &inst) {
  // np.arange(stop), (start, stop) or (start, stop, step), dtype=: NumPy's
  // parameter names, so keywords work too.
  std::vector<const Instruction *> args = positionalArguments(
      inst, {"start", "stop", "step", "dtype"}, "np.arange");
  result_.callArguments[&inst] = args;
  if (!args[0] && !args[1])
    typingError(inst, "np.arange() needs its stop");
  if (args[2] && !(args[0] && args[1]))
    typingError(inst, "np.arange() takes a step after a start and a stop");
  bool anyFloat = false, anyComplex = false;
  for (int i = 0; i < 3; ++i) {
    if (!args[i])
      continue;
    const Type *t = args[i]->type;
    if (!t->isNumber())
      typingError(inst, "np.arange()'s bounds and step must be numbers, "
                        "not '" + t->str() + "'");
    anyFloat |= t->kind == TypeKind::Float || t->kind == TypeKind::WeakFloat;
    anyComplex |=
        t->kind == TypeKind::Complex || t->kind == TypeKind::WeakComplex;
  }
  // NumPy 2 (which takes Python's numbers): complex128 if any bound is
  // complex, else float64 if any is a float, else int64.
  const Type *element = anyComplex ? types::complex(64)
                        : anyFloat ? types::floating(64)
                                   : types::int64();
  if (const Instruction *dtype = args[3]) {
    if (dtype->type->kind != TypeKind::DTypeClass)
      typingError(inst, "np.arange()'s dtype must be a NumPy type such as "
                        "np.float32, not '" + dtype->type->str() + "'");
    element = dtype->type->element;
  }
  if (anyComplex && element->kind != TypeKind::Complex)
    typingError(inst, "np.arange() with complex bounds or step makes "
                      "complex numbers, not " + element->str() +
                      " (NumPy: 'must be real number, not complex')");
  if (element->kind == TypeKind::Bool)
    unsupported(inst, "np.arange() of bool is not made in jit functions; "
                      "use an integer, float or complex dtype");
  return types::array(element, 1, 'C');
}

const Type *Inference::inferRandomCall(Instruction &inst,
                                       const std::string &name) {
  // A number of np.random; its array forms (a size, extents) are the jit
  // library's (_jit_library.py), which the inliner put in their place.
  std::string spelled = "np." + name.substr(6);
  const RandomFunction *f = findRandomFunction(name);
  if (!f)
    unsupported(inst, spelled + "() is not in jit code; of np.random it "
                                "takes " +
                          randomFunctionNames());
  if (result_.kind != FunctionKind::Host)
    unsupported(inst, spelled + "() draws in jit functions (host code and "
                                "prange bodies), not in kernels");
  std::vector<const Instruction *> args =
      positionalArguments(inst, f->parameters, spelled);
  result_.callArguments[&inst] = args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i] || args[i]->type->kind == TypeKind::None)
      continue;
    const Type *t = args[i]->type;
    if (f->parameters[i] == "size")
      unsupported(inst, spelled + "(size=...) in jit code takes the " +
                            "parameters before size too (" + spelled +
                            "(" + f->parameters[0] + ", ..., size))");
    bool integer = f->draw == RandomDraw::Integer ||
                   f->draw == RandomDraw::Seed;
    if (integer)
      requireInteger(inst, t, spelled + "()'s " + f->parameters[i]);
    else if (!t->isNumber() || t->kind == TypeKind::Complex ||
             t->kind == TypeKind::WeakComplex)
      typingError(inst, spelled + "()'s " + f->parameters[i] +
                            " must be a real number, not '" + t->str() +
                            "'");
  }
  if ((f->draw == RandomDraw::Seed || f->draw == RandomDraw::Integer) &&
      !args[0])
    typingError(inst, spelled + "() needs its " + f->parameters[0]);
  return randomDrawType(f->draw);
}

namespace {

/// The extents of a nested tuple of numbers of constant shape (each level's
/// tuples of one length), its leaves' NumPy type promoted into `element`
/// (each Python scalar its default dtype first, as np.array discovers
/// them); false where the tuple is not such.
bool literalShape(const Type *t, size_t depth, std::vector<int64_t> &shape,
                  const Type *&element) {
  if (t->kind != TypeKind::Tuple) {
    if (!t->isNumber() || depth != shape.size())
      return false;
    const Type *e = types::materialize(t);
    element = element ? types::promote(element, e) : e;
    return element != nullptr;
  }
  int64_t n = static_cast<int64_t>(t->elements.size());
  if (depth == shape.size())
    shape.push_back(n);
  else if (shape[depth] != n)
    return false;
  for (const Type *e : t->elements)
    if (!literalShape(e, depth + 1, shape, element))
      return false;
  return true;
}

} // namespace

const Type *Inference::inferArrayLiteral(Instruction &inst,
                                         const std::string &name) {
  // np.array([...]) and np.asarray of numbers, lists and tuples of a
  // constant shape: a new C-contiguous array the host fills.
  std::string spelled = "np." + name.substr(6);
  if (result_.kind != FunctionKind::Host)
    unsupported(inst, spelled + "() makes an array, which a kernel or a "
                                "prange body cannot; make it before the "
                                "loop");
  std::vector<const Instruction *> args =
      positionalArguments(inst, {"object", "dtype"}, spelled);
  result_.callArguments[&inst] = args;
  if (!args[0])
    typingError(inst, spelled + "() needs its object");
  const Type *object = args[0]->type;
  if (object->kind == TypeKind::Array)
    unsupported(inst, spelled + "() of an array in jit code: use a.copy() "
                                "(or the array itself)");
  std::vector<int64_t> shape;
  const Type *element = nullptr;
  if (object->kind != TypeKind::Tuple ||
      !literalShape(object, 0, shape, element))
    unsupported(inst, spelled + "() in jit code takes a list or tuple of "
                                "numbers, or nested lists or tuples of one "
                                "length per level, not '" +
                          object->str() + "'");
  if (!element) // np.array([]) is float64
    element = types::floating(64);
  if (const Instruction *dtype = args[1]) {
    if (dtype->type->kind != TypeKind::DTypeClass)
      typingError(inst, spelled + "()'s dtype must be a NumPy type such as "
                                  "np.float32, not '" +
                            dtype->type->str() + "'");
    element = dtype->type->element;
  }
  return types::array(element, static_cast<int>(shape.size()), 'C');
}

} // namespace spirjit::infer

namespace spirjit {
std::vector<int64_t> literalArrayShape(const Type *t) {
  std::vector<int64_t> shape;
  const Type *element = nullptr;
  infer::literalShape(t, 0, shape, element);
  return shape;
}
} // namespace spirjit
