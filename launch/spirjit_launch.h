/* The launcher's C entry point, for code that is not C++: host code the
 * JIT compiles (the driver of a jit function's prange loops) finds a
 * device, allocates memory on it, and launches an already compiled kernel
 * with an array of argument values over a range, with no Python involved.
 *
 * A kernel handle is a spirjit::launch::KernelCache (launch/Launcher.h),
 * owned by whoever made it; an argument's type is the compiler's
 * `const spirjit::Type *`, which the caller knows when it is compiled.
 * Every function reports failure by its result (NULL or -1) and a message
 * in `error` (`error_size` bytes, NUL-terminated; NULL for none); none
 * throws, prints or exits. */
#ifndef SPIRJIT_LAUNCH_H
#define SPIRJIT_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spirjit_kernel spirjit_kernel;
/* A device: valid for the whole process. */
typedef struct spirjit_device spirjit_device;
/* Memory of one device, until spirjit_buffer_release. */
typedef struct spirjit_buffer spirjit_buffer;

/* The first device matching `filter` ("backend:type:index", any part may
 * be omitted, as SPIRJIT_DEVICE takes it), or the default device for NULL
 * or "". NULL when none matches. */
spirjit_device *spirjit_device_find(const char *filter, char *error,
                                    size_t error_size);

/* `bytes` of memory on `device`, holding a copy of `host` (or
 * uninitialised for NULL). */
spirjit_buffer *spirjit_buffer_allocate(spirjit_device *device, size_t bytes,
                                        const void *host, char *error,
                                        size_t error_size);
/* Copies `bytes` at byte `offset` of `buffer` to `host`, after everything
 * queued on its device. */
int spirjit_buffer_read(spirjit_buffer *buffer, void *host, size_t bytes,
                        size_t offset, char *error, size_t error_size);
/* The memory is freed once no launch in flight uses it. */
void spirjit_buffer_release(spirjit_buffer *buffer);

enum spirjit_argument_kind {
  SPIRJIT_ARGUMENT_HOST_ARRAY = 1, /* host memory, used in place or copied */
  SPIRJIT_ARGUMENT_SCALAR = 2,     /* the bytes of a number */
  SPIRJIT_ARGUMENT_LOCAL_ACCESSOR = 3, /* work-group local memory */
  SPIRJIT_ARGUMENT_DEVICE_ARRAY = 4,   /* a spirjit_buffer at an offset */
};

typedef struct spirjit_argument {
  int32_t kind;     /* an spirjit_argument_kind */
  const void *type; /* const spirjit::Type * */
  /* HOST_ARRAY: the first element, extents and non-negative byte strides
   * (ndim of the type), the element size, and whether the kernel may
   * write it. DEVICE_ARRAY: `buffer` and the byte `offset` of the first
   * element, with extents, byte strides and element size likewise.
   * LOCAL_ACCESSOR: extents and its size in bytes. */
  void *data;
  spirjit_buffer *buffer;
  int64_t offset;
  const int64_t *shape;
  const int64_t *strides;
  int64_t itemsize;
  int32_t writable;
  int64_t local_bytes;
  /* SCALAR: little-endian bytes; a complex number's parts in two slots. */
  uint64_t scalar[2];
} spirjit_argument;

/* Launches `kernel` over `global` (`dims` extents, dimension 0 the
 * slowest) and, when `local` is not NULL, work-groups of `local`, and
 * waits for it: written host arrays hold the results on return. It runs
 * on `device`, or for NULL on the device of its DEVICE_ARRAY arguments,
 * or else on the default device. Returns 0, or -1 with a message. */
int spirjit_launch(spirjit_kernel *kernel, spirjit_device *device, int dims,
                   const int64_t *global, const int64_t *local,
                   const spirjit_argument *args, size_t count, char *error,
                   size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* SPIRJIT_LAUNCH_H */
