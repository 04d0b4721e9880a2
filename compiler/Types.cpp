#include "compiler/Types.h"

#include <cctype>
#include <cstdint>
#include <atomic>
#include <array>
#include <map>
#include <tuple>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace spirjit {

std::string Type::str() const {
  switch (kind) {
  case TypeKind::Bool:
    return "bool";
  case TypeKind::Int:
    return std::string(isSigned ? "int" : "uint") + std::to_string(bits);
  case TypeKind::Float:
    return "float" + std::to_string(bits);
  case TypeKind::Complex:
    return "complex" + std::to_string(2 * bits);
  case TypeKind::WeakInt:
    return "int";
  case TypeKind::WeakFloat:
    return "float";
  case TypeKind::WeakComplex:
    return "complex";
  case TypeKind::None:
    return "none";
  case TypeKind::Array: {
    std::string s = element->str() + "[";
    for (int d = 0; d < ndim; ++d) {
      bool contiguous = (layout == 'C' && d == ndim - 1) ||
                        (layout == 'F' && d == 0);
      s += (d ? ", " : "") + std::string(contiguous ? "::1" : ":");
    }
    s += "]";
    if (memorySpace == MemorySpace::Local)
      s += " local";
    else if (memorySpace == MemorySpace::Private)
      s += " private";
    return s;
  }
  case TypeKind::NdItem:
    return "NdItem(" + std::to_string(ndim) + ")";
  case TypeKind::Group:
    return (name.empty() ? "Group(" : name + "(") + std::to_string(ndim) + ")";
  case TypeKind::AtomicRef:
    return "AtomicRef(" + element->str() +
           (memorySpace == MemorySpace::Local ? ", local)" : ")");
  case TypeKind::Tuple: {
    std::string s = name.empty() ? "Tuple(" : name + "(";
    for (size_t i = 0; i < elements.size(); ++i)
      s += (i ? ", " : "") + (name.empty() ? "" : fields[i] + "=") +
           elements[i]->str();
    return s + ")";
  }
  case TypeKind::Item:
    return "Item(" + std::to_string(ndim) + ")";
  case TypeKind::Range:
    if (!name.empty()) { // enumerate(a), zip(a, b)
      std::string s = name + "(";
      for (size_t i = 0; i < elements.size(); ++i)
        s += (i ? ", " : "") + elements[i]->str();
      return s + ")";
    }
    return ndim ? "pndindex(" + std::to_string(ndim) + ")" : "range";
  case TypeKind::RangeIterator:
    if (!elements.empty())
      return "iterator(" + elements[0]->str() + ")";
    return ndim ? "pndindex_iterator(" + std::to_string(ndim) + ")"
                : "range_iterator";
  case TypeKind::Module:
    return "Module(" + name + ")";
  case TypeKind::Function:
    if (isNamedTupleClass()) {
      std::string s = "class " + name.substr(name.find(':') + 1) + "(";
      for (size_t i = 0; i < fields.size(); ++i)
        s += (i ? ", " : "") + fields[i];
      return s + ")";
    }
    return "Function(" + name + ")";
  case TypeKind::Method:
    return "Method(" + elements[0]->str() + "." + name + ")";
  case TypeKind::DTypeClass:
    return "class(" + element->str() + ")";
  case TypeKind::Slice:
    return "slice";
  case TypeKind::Ellipsis:
    return "ellipsis";
  case TypeKind::List:
    return (name.empty() ? "" : name + " ") + "list(" + element->str() + ")";
  }
  return "?";
}

namespace types {
namespace {

/// Interning: the printed form (plus the kind) identifies a type.
const Type *intern(Type type) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Type>> table;
  std::string key = std::to_string(static_cast<int>(type.kind)) + ":" +
                    type.str() + ":" + type.layout;
  std::lock_guard<std::mutex> lock(mutex);
  auto &slot = table[key];
  if (!slot)
    slot = std::make_unique<Type>(std::move(type));
  return slot.get();
}

Type make(TypeKind kind) {
  Type t;
  t.kind = kind;
  return t;
}

// The numbers and arrays every launch and every DeviceArray operation
// types are found again without printing their key (interning them by
// name was a tenth of recording `a + b` on DeviceArrays). Interned types
// never move, so two threads filling the same slot store the same value.

/// The slot of a power-of-two width of 8 to 64 bits, else -1.
int widthSlot(int bits) {
  switch (bits) {
  case 8:
    return 0;
  case 16:
    return 1;
  case 32:
    return 2;
  case 64:
    return 3;
  default:
    return -1;
  }
}

const Type *numberType(TypeKind kind, int bits, bool isSigned) {
  Type t = make(kind);
  t.bits = bits;
  t.isSigned = isSigned;
  return intern(t);
}

/// kind/bits/signedness -> type, remembered for the common widths.
const Type *cachedNumber(TypeKind kind, int bits, bool isSigned) {
  static std::atomic<const Type *> known[3][2][4];
  int slot = widthSlot(bits);
  int which = kind == TypeKind::Int ? 0 : kind == TypeKind::Float ? 1 : 2;
  if (slot < 0)
    return numberType(kind, bits, isSigned);
  std::atomic<const Type *> &entry = known[which][isSigned][slot];
  const Type *type = entry.load(std::memory_order_acquire);
  if (!type) {
    type = numberType(kind, bits, isSigned);
    entry.store(type, std::memory_order_release);
  }
  return type;
}

} // namespace

const Type *boolean() {
  static const Type *type = intern(make(TypeKind::Bool));
  return type;
}
const Type *integer(int bits, bool isSigned) {
  return cachedNumber(TypeKind::Int, bits, isSigned);
}
const Type *int64() { return integer(64, true); }
const Type *floating(int bits) {
  return cachedNumber(TypeKind::Float, bits, false);
}
const Type *complex(int bits) {
  return cachedNumber(TypeKind::Complex, bits, false);
}
const Type *weakInt() { return intern(make(TypeKind::WeakInt)); }
const Type *weakFloat() { return intern(make(TypeKind::WeakFloat)); }
const Type *weakComplex() { return intern(make(TypeKind::WeakComplex)); }
const Type *none() { return intern(make(TypeKind::None)); }
bool signatureTakes(const Type *listed, const Type *given) {
  return listed == given ||
         (listed->kind == TypeKind::Array && given->kind == TypeKind::Array &&
          listed->layout == 'A' && listed->element == given->element &&
          listed->ndim == given->ndim &&
          listed->memorySpace == given->memorySpace);
}

const Type *array(const Type *element, int ndim, char layout,
                  MemorySpace memorySpace) {
  layout = ndim == 1 && layout == 'F' ? 'C' : layout;
  using Key = std::tuple<const Type *, int, char, int>;
  static std::mutex mutex;
  static std::map<Key, const Type *> known;
  Key key{element, ndim, layout, static_cast<int>(memorySpace)};
  // The last few found on this thread, without the lock and the map: a
  // DeviceArray made by an operation, and each array a launch binds,
  // asks for the same few types again and again.
  thread_local std::array<std::pair<Key, const Type *>, 4> recent{};
  thread_local size_t next = 0;
  for (const auto &[k, type] : recent)
    if (type && k == key)
      return type;
  auto remember = [&](const Type *type) {
    recent[next++ % recent.size()] = {key, type};
    return type;
  };
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(key);
    if (it != known.end())
      return remember(it->second);
  }
  Type t = make(TypeKind::Array);
  t.element = element;
  t.ndim = ndim;
  t.layout = layout;
  t.memorySpace = memorySpace;
  const Type *type = intern(t);
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(key, type);
  return remember(type);
}
const Type *ndItem(int ndim) {
  Type t = make(TypeKind::NdItem);
  t.ndim = ndim;
  return intern(t);
}
const Type *group(int ndim) {
  Type t = make(TypeKind::Group);
  t.ndim = ndim;
  return intern(t);
}
const Type *subGroup(int ndim) {
  Type t = make(TypeKind::Group);
  t.ndim = ndim;
  t.name = "SubGroup";
  return intern(t);
}
bool isSubGroup(const Type *t) {
  return t->kind == TypeKind::Group && t->name == "SubGroup";
}
const Type *atomicRef(const Type *element, MemorySpace memorySpace) {
  Type t = make(TypeKind::AtomicRef);
  t.element = element;
  t.memorySpace = memorySpace;
  return intern(t);
}
const Type *tuple(std::vector<const Type *> elements) {
  Type t = make(TypeKind::Tuple);
  t.elements = std::move(elements);
  return intern(t);
}
const Type *namedTuple(const std::string &key, std::vector<std::string> fields,
                       std::vector<const Type *> elements) {
  Type t = make(TypeKind::Tuple);
  t.name = key;
  t.fields = std::move(fields);
  t.elements = std::move(elements);
  return intern(t);
}
const Type *namedTupleClass(const std::string &key,
                            std::vector<std::string> fields) {
  Type t = make(TypeKind::Function);
  t.name = "namedtuple:" + key;
  t.fields = std::move(fields);
  return intern(t);
}
std::string namedTupleClassName(const Type *namedTuple) {
  // The key is module.qualname, "#n" after it for a second class so named.
  std::string key = namedTuple->name.substr(0, namedTuple->name.find('#'));
  return key.substr(key.rfind('.') + 1);
}
const Type *withElements(const Type *tuple,
                         std::vector<const Type *> elements) {
  if (tuple->isNamedTuple())
    return namedTuple(tuple->name, tuple->fields, std::move(elements));
  return types::tuple(std::move(elements));
}
const Type *item(int ndim) {
  Type t = make(TypeKind::Item);
  t.ndim = ndim;
  return intern(t);
}
const Type *range(int ndim) {
  Type t = make(TypeKind::Range);
  t.ndim = ndim;
  return intern(t);
}
const Type *rangeIterator(int ndim) {
  Type t = make(TypeKind::RangeIterator);
  t.ndim = ndim;
  return intern(t);
}
const Type *sequences(const std::string &name,
                      std::vector<const Type *> arrays) {
  Type t = make(TypeKind::Range);
  t.name = name;
  t.elements = std::move(arrays);
  return intern(t);
}
const Type *uniformElement(const Type *tuple) {
  if (tuple->elements.empty())
    return nullptr;
  const Type *t = tuple->elements[0];
  if (!t->isNumber() && t->kind != TypeKind::Array)
    return nullptr; // (tuples of tuples: not chosen by an index)
  for (const Type *e : tuple->elements) {
    if (e == t)
      continue;
    if (!t->isNumber() || !e->isNumber())
      return nullptr;
    t = promote(t, e);
    if (!t)
      return nullptr;
  }
  return t;
}
const Type *sequenceIterator(const Type *sequence) {
  Type t = make(TypeKind::RangeIterator);
  t.elements = {sequence};
  return intern(t);
}
const Type *slice() { return intern(make(TypeKind::Slice)); }
const Type *ellipsis() { return intern(make(TypeKind::Ellipsis)); }
const Type *list(const Type *element) {
  Type t = make(TypeKind::List);
  t.element = element;
  return intern(t);
}
const Type *reflectedList(const Type *element) {
  Type t = make(TypeKind::List);
  t.element = element;
  t.name = "reflected";
  return intern(t);
}
const Type *module(const std::string &name) {
  Type t = make(TypeKind::Module);
  t.name = name;
  return intern(t);
}
const Type *function(const std::string &name) {
  Type t = make(TypeKind::Function);
  t.name = name;
  return intern(t);
}
const Type *method(const Type *receiver, const std::string &name) {
  Type t = make(TypeKind::Method);
  t.elements = {receiver};
  t.name = name;
  return intern(t);
}
const Type *dtypeClass(const Type *element) {
  Type t = make(TypeKind::DTypeClass);
  t.element = element;
  return intern(t);
}

namespace {
/// NumPy's names for C's types, as `np.<name>` spells them (NumPy 2 on
/// this platform: the widths are the compiler's C types, as NumPy's are its
/// C compiler's). `np.float_` and `np.complex_` are gone from NumPy 2, so
/// they are not here; float16 and longdouble are not types of ours.
const Type *fromCTypeName(const std::string &name) {
  static const std::map<std::string, std::pair<int, bool>> integers = {
      {"byte", {8 * sizeof(signed char), true}},
      {"ubyte", {8 * sizeof(unsigned char), false}},
      {"short", {8 * sizeof(short), true}},
      {"ushort", {8 * sizeof(unsigned short), false}},
      {"intc", {8 * sizeof(int), true}},
      {"uintc", {8 * sizeof(unsigned), false}},
      {"long", {8 * sizeof(long), true}},
      {"ulong", {8 * sizeof(unsigned long), false}},
      {"longlong", {8 * sizeof(long long), true}},
      {"ulonglong", {8 * sizeof(unsigned long long), false}},
      // NumPy 2's default integer is intp (NumPy 1's was C long).
      {"intp", {8 * sizeof(std::intptr_t), true}},
      {"uintp", {8 * sizeof(std::uintptr_t), false}},
      {"int_", {8 * sizeof(std::intptr_t), true}},
      {"uint", {8 * sizeof(std::uintptr_t), false}},
  };
  auto it = integers.find(name);
  if (it != integers.end())
    return integer(it->second.first, it->second.second);
  if (name == "single")
    return floating(8 * sizeof(float));
  if (name == "double")
    return floating(8 * sizeof(double));
  if (name == "csingle")
    return complex(8 * sizeof(float));
  if (name == "cdouble")
    return complex(8 * sizeof(double));
  return nullptr;
}
} // namespace

const Type *fromDTypeName(const std::string &name) {
  if (name == "bool" || name == "bool_")
    return boolean();
  if (name == "float32")
    return floating(32);
  if (name == "float64")
    return floating(64);
  if (name == "complex64")
    return complex(32);
  if (name == "complex128")
    return complex(64);
  for (int bits : {8, 16, 32, 64}) {
    if (name == "int" + std::to_string(bits))
      return integer(bits, true);
    if (name == "uint" + std::to_string(bits))
      return integer(bits, false);
  }
  return fromCTypeName(name);
}

int itemsize(const Type *element) {
  const Type *t = materialize(element);
  if (t->kind == TypeKind::Bool)
    return 1;
  return t->kind == TypeKind::Complex ? t->bits / 4 : t->bits / 8;
}

const Type *materialize(const Type *type) {
  switch (type->kind) {
  case TypeKind::WeakInt:
    return int64();
  case TypeKind::WeakFloat:
    return floating(64);
  case TypeKind::WeakComplex:
    return complex(64);
  default:
    return type;
  }
}

namespace {
/// Rank of a kind in the bool < int < float < complex ladder.
int category(const Type *t) {
  switch (t->kind) {
  case TypeKind::Bool:
    return 0;
  case TypeKind::Int:
  case TypeKind::WeakInt:
    return 1;
  case TypeKind::Float:
  case TypeKind::WeakFloat:
    return 2;
  case TypeKind::Complex:
  case TypeKind::WeakComplex:
    return 3;
  default:
    return -1;
  }
}

/// Smallest float that holds every value of an integer type exactly enough
/// for NumPy (int8/uint8 -> float16, 16 -> float32, wider -> float64); we
/// have no float16, so float32 is the floor.
int floatBitsFor(const Type *integer) {
  return integer->bits <= 16 ? 32 : 64;
}
} // namespace

const Type *promote(const Type *a, const Type *b) {
  int ca = category(a), cb = category(b);
  if (ca < 0 || cb < 0)
    return nullptr;
  if (a == b)
    return a;
  // Weak against weak: Python's own rules, still weak.
  if (a->isWeak() && b->isWeak())
    return ca >= cb ? a : b;
  // Weak against typed: the typed one wins in its category; a weak value of
  // a higher category lifts it to that category at the typed one's size.
  if (a->isWeak() || b->isWeak()) {
    const Type *weak = a->isWeak() ? a : b;
    const Type *typed = a->isWeak() ? b : a;
    int cw = category(weak), ct = category(typed);
    if (cw <= ct)
      return typed->kind == TypeKind::Bool && cw == 1 ? int64() : typed;
    if (cw == 1) // weak int with bool
      return int64();
    if (cw == 2) // weak float with bool or int
      return typed->kind == TypeKind::Int ? floating(64) : floating(64);
    // weak complex
    if (typed->kind == TypeKind::Float)
      return complex(typed->bits);
    return complex(64);
  }
  if (ca != cb) {
    const Type *low = ca < cb ? a : b;
    const Type *high = ca < cb ? b : a;
    if (low->kind == TypeKind::Bool)
      return high;
    if (low->kind == TypeKind::Int) {
      int need = floatBitsFor(low);
      if (high->kind == TypeKind::Float)
        return floating(std::max(need, high->bits));
      return complex(std::max(need, high->bits));
    }
    // float with complex
    return complex(std::max(low->bits, high->bits));
  }
  switch (a->kind) {
  case TypeKind::Int: {
    if (a->isSigned == b->isSigned)
      return integer(std::max(a->bits, b->bits), a->isSigned);
    const Type *s = a->isSigned ? a : b;
    const Type *u = a->isSigned ? b : a;
    if (s->bits > u->bits)
      return s;
    if (u->bits < 64)
      return integer(u->bits * 2, true);
    return floating(64);
  }
  case TypeKind::Float:
    return floating(std::max(a->bits, b->bits));
  case TypeKind::Complex:
    return complex(std::max(a->bits, b->bits));
  default:
    return a;
  }
}

namespace {
class SignatureParser {
public:
  explicit SignatureParser(const std::string &text) : text_(text) {}

  Signature parse() {
    Signature sig;
    skipSpace();
    if (peek() != '(') {
      sig.returnType = parseType();
      skipSpace();
    }
    expect('(');
    skipSpace();
    if (peek() != ')') {
      for (;;) {
        sig.arguments.push_back(parseType());
        skipSpace();
        if (peek() == ',') {
          ++pos_;
          skipSpace();
          if (peek() == ')') // a trailing comma, as in a Python tuple
            break;
          continue;
        }
        break;
      }
    }
    expect(')');
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the closing parenthesis");
    return sig;
  }

private:
  [[noreturn]] void fail(const std::string &why) {
    throw std::invalid_argument("invalid signature '" + text_ + "': " + why +
                                " (at character " + std::to_string(pos_ + 1) +
                                "); expected e.g. \"(float32[::1], int64)\"");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c)
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  const Type *parseType() {
    skipSpace();
    size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')
      ++pos_;
    std::string name = text_.substr(start, pos_ - start);
    if (name.empty())
      fail("expected a type name");
    const Type *scalar = fromDTypeName(name);
    if (name == "int")
      scalar = int64();
    if (name == "float")
      scalar = floating(64);
    if (name == "boolean" || name == "b1")
      scalar = boolean();
    if (name == "void" || name == "none")
      scalar = none();
    if (!scalar)
      fail("unknown type '" + name + "'");
    skipSpace();
    if (peek() != '[')
      return scalar;
    ++pos_;
    // Dimensions: ':' or '::1', comma-separated.
    std::vector<bool> contiguous;
    for (;;) {
      skipSpace();
      if (text_.compare(pos_, 3, "::1") == 0) {
        contiguous.push_back(true);
        pos_ += 3;
      } else if (peek() == ':') {
        contiguous.push_back(false);
        ++pos_;
      } else {
        fail("expected ':' or '::1' in an array type");
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      break;
    }
    expect(']');
    int ndim = static_cast<int>(contiguous.size());
    char layout = 'A';
    if (contiguous.back() && ndim >= 1)
      layout = 'C';
    if (ndim > 1 && contiguous.front() && !contiguous.back())
      layout = 'F';
    for (int d = 0; d < ndim; ++d) {
      bool expectContiguous = (layout == 'C' && d == ndim - 1) ||
                              (layout == 'F' && d == 0);
      if (contiguous[d] != expectContiguous)
        fail("'::1' may only mark the last (C) or first (F) dimension");
    }
    // "float32[::1] local": a LocalAccessor's memory.
    skipSpace();
    if (text_.compare(pos_, 5, "local") == 0) {
      pos_ += 5;
      return array(scalar, ndim, layout, MemorySpace::Local);
    }
    return array(scalar, ndim, layout);
  }

  const std::string &text_;
  size_t pos_ = 0;
};
} // namespace

Signature parseSignature(const std::string &text) {
  return SignatureParser(text).parse();
}

std::string formatArguments(const std::vector<const Type *> &arguments) {
  std::string s = "(";
  for (size_t i = 0; i < arguments.size(); ++i)
    s += (i ? ", " : "") + arguments[i]->str();
  return s + ")";
}

} // namespace types
} // namespace spirjit
