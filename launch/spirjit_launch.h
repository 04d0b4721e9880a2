/* The launcher's C entry point, for code that is not C++: host code the
 * JIT compiles (prange's driver) launches an already compiled kernel with
 * an array of argument values over a range, with no Python involved.
 *
 * A kernel handle is a spirjit::launch::KernelCache (launch/Launcher.h),
 * owned by whoever made it; an argument's type is the compiler's
 * `const spirjit::Type *`, which the caller knows when it is compiled. */
#ifndef SPIRJIT_LAUNCH_H
#define SPIRJIT_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spirjit_kernel spirjit_kernel;

enum spirjit_argument_kind {
  SPIRJIT_ARGUMENT_HOST_ARRAY = 1, /* host memory, used in place or copied */
  SPIRJIT_ARGUMENT_SCALAR = 2,     /* the bytes of a number */
  SPIRJIT_ARGUMENT_LOCAL_ACCESSOR = 3, /* work-group local memory */
};

typedef struct spirjit_argument {
  int32_t kind;     /* an spirjit_argument_kind */
  const void *type; /* const spirjit::Type * */
  /* HOST_ARRAY: the first element, extents and byte strides (ndim of the
   * type; non-negative), the element size, and whether the kernel may
   * write it.
   * LOCAL_ACCESSOR: extents and its size in bytes. */
  void *data;
  const int64_t *shape;
  const int64_t *strides;
  int64_t itemsize;
  int32_t writable;
  int64_t local_bytes;
  /* SCALAR: little-endian bytes; a complex number's parts in two slots. */
  uint64_t scalar[2];
} spirjit_argument;

/* Launches `kernel` over `global` (`dims` extents, dimension 0 the
 * slowest) and, when `local` is not NULL, work-groups of `local`, on the
 * default device (SPIRJIT_DEVICE), and waits for it: written host arrays
 * hold the results on return. Returns 0, or -1 with a message in `error`
 * (`error_size` bytes, NUL-terminated; NULL for none). */
int spirjit_launch(spirjit_kernel *kernel, int dims, const int64_t *global,
                   const int64_t *local, const spirjit_argument *args,
                   size_t count, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* SPIRJIT_LAUNCH_H */
