// A kernel's `signatures=` at its launches (Launcher.h's KernelCache):
// which signature takes the arguments, with NumPy's safe casts of scalars.
#include "launch/Launcher.h"

#include "frontend/Diagnostics.h"

#include <algorithm>
#include <cstring>

namespace spirjit::launch {

namespace {

/// NumPy's can_cast(from, to, "safe") for real scalars and bools.
bool castsSafely(const Type *from, const Type *to) {
  if (from == to)
    return true;
  if (from->kind == TypeKind::Bool)
    return to->kind == TypeKind::Int || to->kind == TypeKind::Float;
  if (from->kind == TypeKind::Int && to->kind == TypeKind::Int) {
    if (from->isSigned == to->isSigned)
      return to->bits >= from->bits;
    return !from->isSigned && to->bits > from->bits;
  }
  if (from->kind == TypeKind::Int && to->kind == TypeKind::Float)
    return to->bits == 64 ? from->bits <= 32 : from->bits <= 16;
  if (from->kind == TypeKind::Float && to->kind == TypeKind::Float)
    return to->bits >= from->bits;
  return false;
}

/// Whether the Python number `v` of type `from` (an int64 or float64
/// argument) goes to `to` as NEP 50 takes a weak scalar: an int to any
/// integer type that holds its value or to a float, a float to any float.
bool castsWeakly(const ArgumentValue &v, const Type *from, const Type *to) {
  if (from->kind == TypeKind::Float)
    return to->kind == TypeKind::Float;
  if (from->kind != TypeKind::Int || !from->isSigned)
    return false;
  if (to->kind == TypeKind::Float)
    return true;
  if (to->kind != TypeKind::Int)
    return false;
  int64_t value;
  std::memcpy(&value, &v.scalar[0], sizeof value);
  if (to->bits == 64)
    return to->isSigned || value >= 0;
  int64_t low = to->isSigned ? -(int64_t(1) << (to->bits - 1)) : 0;
  int64_t high = to->isSigned ? (int64_t(1) << (to->bits - 1)) - 1
                              : (int64_t(1) << to->bits) - 1;
  return value >= low && value <= high;
}

/// The scalar `v` (bytes of type `from`) as bytes of type `to`.
void convertScalar(ArgumentValue &v, const Type *from, const Type *to) {
  double real = 0;
  int64_t integer = 0;
  uint64_t raw = v.scalar[0];
  bool floating = from->kind == TypeKind::Float;
  if (floating) {
    if (from->bits == 32) {
      float f;
      uint32_t b = static_cast<uint32_t>(raw);
      std::memcpy(&f, &b, sizeof f);
      real = f;
    } else {
      std::memcpy(&real, &raw, sizeof real);
    }
  } else if (from->kind == TypeKind::Bool) {
    integer = raw & 1;
  } else if (from->isSigned) {
    int shift = 64 - from->bits; // sign-extend the low bits
    integer = static_cast<int64_t>(raw << shift) >> shift;
  } else {
    integer = static_cast<int64_t>(from->bits == 64
                                       ? raw
                                       : raw & ((uint64_t(1) << from->bits) -
                                                1));
  }
  uint64_t out = 0;
  if (to->kind == TypeKind::Float) {
    double d = floating ? real : static_cast<double>(integer);
    if (to->bits == 32) {
      float f = static_cast<float>(d);
      uint32_t b;
      std::memcpy(&b, &f, sizeof b);
      out = b;
    } else {
      std::memcpy(&out, &d, sizeof out);
    }
  } else {
    out = static_cast<uint64_t>(integer);
    if (to->bits < 64)
      out &= (uint64_t(1) << to->bits) - 1;
  }
  v.scalar[0] = out;
  v.type = to;
}

} // namespace

const std::vector<const Type *> *
KernelCache::castingSignature(const std::vector<const Type *> &types,
                              const ArgumentValue *args) const {
  for (const std::vector<const Type *> &listed : signatures_) {
    if (listed.size() != types.size())
      continue;
    bool takes = true;
    for (size_t i = 0; i < types.size() && takes; ++i)
      takes = types::signatureTakes(listed[i], types[i]) ||
              (listed[i]->isNumber() && types[i]->isNumber() &&
               (castsSafely(types[i], listed[i]) ||
                (args[i].kind == ArgumentValue::Kind::Scalar &&
                 args[i].python && castsWeakly(args[i], types[i], listed[i]))));
    if (takes)
      return &listed;
  }
  return nullptr;
}

void KernelCache::checkSignatures(const std::vector<const Type *> &types) {
  if (signatures_.empty())
    return;
  for (const std::vector<const Type *> &listed : signatures_)
    if (listed.size() == types.size() &&
        std::equal(listed.begin(), listed.end(), types.begin(),
                   types::signatureTakes))
      return; // (compiled for the arguments' own layouts, as without)
  std::string list;
  for (const std::string &text : signatureTexts_)
    list += "\n  " + text;
  // At the kernel's definition, whose decorator lists the signatures.
  const FunctionDescription &kernel = description();
  throw UserError(UserErrorKind::Typing, kernel.filename, kernel.firstLine,
                  "the arguments " + types::formatArguments(types) +
                      " match none of '" + kernel.name +
                      "''s signatures (its decorator's signatures=):" + list);
}

const ArgumentValue *
KernelCache::toSignature(const ArgumentValue *args, size_t n,
                         std::vector<const Type *> &argTypes,
                         std::vector<ArgumentValue> &converted) const {
  for (const std::vector<const Type *> &listed : signatures_)
    if (listed.size() == n &&
        std::equal(listed.begin(), listed.end(), argTypes.begin(),
                   types::signatureTakes))
      return args; // a signature of the arguments' own types
  const std::vector<const Type *> *casting = castingSignature(argTypes, args);
  if (!casting)
    return args; // checkSignatures says none takes them
  converted.assign(args, args + n);
  for (size_t i = 0; i < n; ++i)
    if (args[i].kind == ArgumentValue::Kind::Scalar &&
        (*casting)[i] != argTypes[i]) {
      convertScalar(converted[i], argTypes[i], (*casting)[i]);
      argTypes[i] = (*casting)[i];
    }
  return converted.data();
}

} // namespace spirjit::launch
