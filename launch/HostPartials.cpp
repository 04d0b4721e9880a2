// Combining a prange reduction's partial results on the host (HostCall.h):
// in order, with the value before the loop, as the loop's operator does.
#include "launch/HostCall.h"

#include "frontend/Diagnostics.h"

#include <cstring>
#include <type_traits>

namespace spirjit::launch {

size_t itemSize(const Type *t) {
  if (t->kind == TypeKind::Bool)
    return 1;
  if (t->kind == TypeKind::Complex)
    return 2 * t->bits / 8;
  return t->bits / 8;
}

namespace {

template <typename T> T combine(ReductionOp op, T a, T b) {
  switch (op) {
  case ReductionOp::Add:
    return a + b;
  case ReductionOp::Mul:
    return a * b;
  case ReductionOp::Min: // a NaN partial wins, as in np.minimum
    return b < a || b != b ? b : a;
  case ReductionOp::Max:
    return b > a || b != b ? b : a;
  default:
    break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
    case ReductionOp::Or:
      return a | b;
    case ReductionOp::And:
      return a & b;
    case ReductionOp::Xor:
      return a ^ b;
    default:
      break;
    }
  }
  return a;
}

/// The partials combined in order with the initial value. float32 sums and
/// products are carried in double: a GPU's launch leaves up to 2^17
/// partials, and adding that many in float32 loses about 1e-5 of the sum.
template <typename T>
void combineAll(ReductionOp op, const void *initial, const char *partials,
                int64_t n, void *out) {
  using Carried = std::conditional_t<std::is_same_v<T, float>, double, T>;
  T first;
  std::memcpy(&first, initial, sizeof(T));
  Carried value = first;
  for (int64_t i = 0; i < n; ++i) {
    T p;
    std::memcpy(&p, partials + i * sizeof(T), sizeof(T));
    value = combine<Carried>(op, value, p);
  }
  T result = static_cast<T>(value);
  std::memcpy(out, &result, sizeof(T));
}

/// Complex partials (sums and products only), carried in double as
/// float32 ones are, multiplied as NumPy multiplies.
template <typename T>
void combineComplex(ReductionOp op, const void *initial, const char *partials,
                    int64_t n, void *out) {
  T part[2];
  std::memcpy(part, initial, sizeof part);
  double re = part[0], im = part[1];
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(part, partials + i * sizeof part, sizeof part);
    if (op == ReductionOp::Add) {
      re += part[0];
      im += part[1];
    } else {
      double r = re * part[0] - im * part[1];
      im = re * part[1] + im * part[0];
      re = r;
    }
  }
  part[0] = static_cast<T>(re);
  part[1] = static_cast<T>(im);
  std::memcpy(out, part, sizeof part);
}

/// Each row's (value, index) partials folded as the kernel over partials
/// folds them (ArrayKernel.cpp, the arg fold's join): a NaN beats a number,
/// a greater value (a smaller for argmin) beats a lesser, and of equals
/// (two NaNs included) the smaller index wins.
template <typename T>
void foldArg(bool isMax, const char *values, const char *indices,
             int64_t rows, int64_t groups, char *out, int64_t outStride) {
  for (int64_t r = 0; r < rows; ++r) {
    T best;
    int64_t bestIndex;
    std::memcpy(&best, values + r * groups * sizeof(T), sizeof(T));
    std::memcpy(&bestIndex, indices + r * groups * 8, 8);
    for (int64_t g = 1; g < groups; ++g) {
      T v;
      int64_t i;
      std::memcpy(&v, values + (r * groups + g) * sizeof(T), sizeof(T));
      std::memcpy(&i, indices + (r * groups + g) * 8, 8);
      bool vNan = v != v, bestNan = best != best;
      bool better;
      if (vNan || bestNan)
        better = vNan && (!bestNan || i < bestIndex);
      else
        better = (isMax ? v > best : v < best) || (v == best && i < bestIndex);
      if (better) {
        best = v;
        bestIndex = i;
      }
    }
    std::memcpy(out + r * outStride, &bestIndex, 8);
  }
}

} // namespace

void combinePartials(ReductionOp op, const Type *t, const void *initial,
                     const char *partials, int64_t n, void *out) {
  if (op == ReductionOp::Last) {
    // The last partial is the last work-item's: the tail launch's last one,
    // or without a tail the last share's, whose last iteration (contiguous
    // or interleaved) is the loop's last.
    size_t size = itemSize(t);
    std::memcpy(out, partials + (n - 1) * size, size);
    return;
  }
  switch (t->kind) {
  case TypeKind::Bool:
    return combineAll<bool>(op, initial, partials, n, out);
  case TypeKind::Float:
    return t->bits == 32 ? combineAll<float>(op, initial, partials, n, out)
                         : combineAll<double>(op, initial, partials, n, out);
  case TypeKind::Int:
    switch (t->bits * (t->isSigned ? 1 : -1)) {
    case 8:
      return combineAll<int8_t>(op, initial, partials, n, out);
    case 16:
      return combineAll<int16_t>(op, initial, partials, n, out);
    case 32:
      return combineAll<int32_t>(op, initial, partials, n, out);
    case 64:
      return combineAll<int64_t>(op, initial, partials, n, out);
    case -8:
      return combineAll<uint8_t>(op, initial, partials, n, out);
    case -16:
      return combineAll<uint16_t>(op, initial, partials, n, out);
    case -32:
      return combineAll<uint32_t>(op, initial, partials, n, out);
    case -64:
      return combineAll<uint64_t>(op, initial, partials, n, out);
    }
    break;
  case TypeKind::Complex:
    if (op != ReductionOp::Add && op != ReductionOp::Mul)
      break;
    return t->bits == 32 // of each part
               ? combineComplex<float>(op, initial, partials, n, out)
               : combineComplex<double>(op, initial, partials, n, out);
  default:
    break;
  }
  SPIRJIT_INTERNAL_CHECK(false, "a reduction of " + t->str());
}

bool foldsArgPartials(const Type *t) {
  return t->kind == TypeKind::Int ||
         (t->kind == TypeKind::Float && (t->bits == 32 || t->bits == 64));
}

bool foldArgPartials(bool isMax, const Type *t, const char *values,
                     const char *indices, int64_t rows, int64_t groups,
                     char *out, int64_t outStride) {
  auto fold = [&](auto zero) {
    foldArg<decltype(zero)>(isMax, values, indices, rows, groups, out,
                            outStride);
    return true;
  };
  if (!foldsArgPartials(t))
    return false;
  if (t->kind == TypeKind::Float)
    return t->bits == 32 ? fold(float()) : fold(double());
  switch (t->bits * (t->isSigned ? 1 : -1)) {
  case 8:
    return fold(int8_t());
  case 16:
    return fold(int16_t());
  case 32:
    return fold(int32_t());
  case 64:
    return fold(int64_t());
  case -8:
    return fold(uint8_t());
  case -16:
    return fold(uint16_t());
  case -32:
    return fold(uint32_t());
  case -64:
    return fold(uint64_t());
  }
  return false;
}

} // namespace spirjit::launch
