/* What compiled host code (a jit function's driver, FunctionKind::Host)
 * calls back into: the launcher's helpers, by these C names. The lowering
 * (compiler/lower/LowerHost.cpp) emits the calls; launch/HostCall.cpp
 * defines them; the JIT binds the names to their addresses. `context` is
 * the call's launch::HostCall. A helper that fails leaves its message in
 * the context and returns non-zero (or NULL); the host code then returns
 * that status at once. */
#ifndef SPIRJIT_HOST_ABI_H
#define SPIRJIT_HOST_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One value a prange loop's kernel takes, as the host code holds it: an
 * array's first element, extents and strides in elements (one per
 * dimension, of any rank); a number's bytes (a complex number's parts in
 * the two slots). */
typedef struct spirjit_host_value {
  void *data;
  const int64_t *shape;
  const int64_t *strides;
  uint64_t scalar[2];
} spirjit_host_value;

/* Runs parfor `index` of the function (Parfor.h) over `ranges` (start,
 * stop, step per dimension) with the kernel's values `args`, and waits for
 * it. Reduction results go to `results` (16 bytes each), starting from
 * `initials` (likewise). Returns 0 or a failure. */
int32_t spirjit_host_parfor(void *context, int32_t index,
                            const int64_t *ranges,
                            const spirjit_host_value *args, void *results,
                            const void *initials);

/* A new C-contiguous array of `ndim` extents on the call's device (or in
 * host memory for a call on NumPy arrays); NULL on failure. `usm`'s low two
 * bits are the USM kind (0 device, 1 shared, 2 host; 3: that of the array
 * at `like` when it is device memory, else the call's, its DeviceArray
 * arguments' combined); its bit 2 asks for device memory even in a call on
 * NumPy arrays (spirjit's own constructors). `device`, when not NULL, is a
 * filter string the call's device must match. */
void *spirjit_host_alloc(void *context, int32_t ndim, const int64_t *shape,
                         int64_t itemsize, int32_t usm, const void *like,
                         const char *device);

/* Stores the `itemsize` bytes at `value` into `count` elements of an
 * array the call allocated. Returns 0 or a failure. */
int32_t spirjit_host_fill(void *context, void *data, int64_t count,
                          int64_t itemsize, const void *value);

/* Copies `bytes` bytes from `source` to the start of an array the call
 * allocated (np.array's elements). Returns 0 or a failure. */
int32_t spirjit_host_write(void *context, void *data, int64_t bytes,
                           const void *source);

/* np.arange: a new 1-D array, placed as np.empty's, of ceil((stop - start)
 * / step) elements (none if that is negative) start + i * step, computed in
 * double when `floating`, else in int64, then converted to the element:
 * `element` is its itemsize, plus 256 for a float, plus 512 for an
 * unsigned integer. The length goes to `length`. NULL on failure (a step
 * of 0 is NumPy's ZeroDivisionError, its message starting with `where`,
 * the call's file:line). */
void *spirjit_host_arange(void *context, int32_t floating, double fstart,
                          double fstop, double fstep, int64_t istart,
                          int64_t istop, int64_t istep, int32_t element,
                          int64_t *length, const char *where);

/* np.arange of complex numbers, as NumPy 2 makes it: the quotient q =
 * (stop - start) / step by Python's complex division (a step of 0 is
 * ZeroDivisionError); its length is min(ceil(q.real), ceil(q.imag)) when
 * `complexBounds` (a bound or the step is complex), else ceil(q.real)
 * (real bounds, a complex dtype); none if negative, NumPy's ValueError if
 * NaN or beyond int64. Element 0 is start, 1 start + step, then start + i
 * * delta with delta = element 1 - element 0 in the element's precision
 * (NumPy's fill; numba's start + i * step differs in the last bits).
 * `element` is the itemsize, 8 or 16. The length goes to `length`; NULL
 * on failure, its message starting with `where`. */
void *spirjit_host_arange_complex(void *context, int32_t complexBounds,
                                  double startReal, double startImag,
                                  double stopReal, double stopImag,
                                  double stepReal, double stepImag,
                                  int32_t element, int64_t *length,
                                  const char *where);

/* A check of the host code failed (compiler/ArrayExpressions.h): raises a
 * ValueError with `message`, in which "{got}" and "{expected}" stand for
 * the two numbers. Returns non-zero. */
int32_t spirjit_host_fail(void *context, const char *message, int64_t got,
                          int64_t expected);

/* A failed `assert` of host code compiled with debug=True: raises an
 * AssertionError with `message` ("file:line: text"). Returns non-zero. */
int32_t spirjit_host_assert(void *context, const char *message);

/* A failed check of host code compiled with boundscheck=True or
 * debug=True: raises an IndexError (kind 0) or a ZeroDivisionError (kind
 * 1) with `message`, in which "{got}" and "{expected}" stand for the two
 * numbers. Returns non-zero. */
int32_t spirjit_host_raise(void *context, int32_t kind, const char *message,
                           int64_t got, int64_t expected);

/* np.random in host code (compiler/RandomDraws.h): the calling thread's
 * generator, a key and a counter, as numba gives each thread its own
 * state; unseeded, the key comes from the operating system's entropy.
 * Writes the key to `key` and returns the counter, which counts the draw.
 * The lowering hashes the two into the draw's bits. */
uint64_t spirjit_host_random(uint64_t *key);

/* np.random.seed(seed): the calling thread's generator starts again at
 * key `seed`, counter 0. */
void spirjit_host_random_seed(int64_t seed);

/* A list in host code (numba's typed list): `length` items of one number
 * type at `data`, room for `capacity`. The call owns it (and frees it when
 * it ends). `changed` turns non-zero when an item is assigned or appended:
 * a list argument (numba's reflected list, made by the binding from the
 * caller's Python list) is then written back into the caller's list. */
typedef struct spirjit_host_list {
  void *data;
  int64_t length;
  int64_t capacity;
  int64_t changed;
} spirjit_host_list;

/* A new list of `count` items of `itemsize` bytes (zeroed); NULL on
 * failure. */
void *spirjit_host_list_new(void *context, int64_t count, int64_t itemsize);

/* Appends an item of `itemsize` bytes to `list`, growing it: returns where
 * the caller stores the item, or NULL on failure. */
void *spirjit_host_list_append(void *context, void *list, int64_t itemsize);

/* sorted(list): a new list of its items in ascending order (descending
 * when `reverse`), stable as Python's. `item`: the items' size, plus 256
 * for a float, plus 512 for an unsigned integer or a bool. NULL on
 * failure. */
void *spirjit_host_list_sorted(void *context, void *list, int64_t itemsize,
                               int32_t item, int32_t reverse);

/* print() in host code: writes the printf `format` of the arguments that
 * follow (the lowering makes one format per line, Python's str() of each
 * value) where Python's print would (HostCall::print: sys.stdout, so the
 * line comes in order with Python's own). Returns 0 or a failure. */
int32_t spirjit_host_print(void *context, const char *format, ...);

#ifdef __cplusplus
}
#endif

#endif /* SPIRJIT_HOST_ABI_H */
