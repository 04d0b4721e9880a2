// A C++ extension on spirjit's arrays: y = A @ x for float32 and float64
// DeviceArrays (any strides), computed by the module's own kernel on the
// arrays' own queue or stream, so it runs after the work that made A and x
// and before whatever spirjit does next with y.
//
//   OpenCL: an OpenCL C kernel built with clCreateProgramWithSource on the
//           queue's context, its array arguments SVM pointers
//           (clSetKernelArgSVMPointer), or cl_mem and an offset where the
//           memory is an OpenCL buffer;
//   CUDA:   a PTX kernel loaded with cuModuleLoadData into the device's
//           primary context and launched with cuLaunchKernel on spirjit's
//           stream;
//   native: the native CPU device's arrays are host memory and it has no
//           queue to enqueue on: the module waits for spirjit's work
//           (device().synchronize()) and computes on the host;
//   Level Zero: NotImplementedError.
//
// Both drivers are opened with dlopen (spirjit has loaded them already),
// so the module builds with a C++ compiler, pybind11 and spirjit's header
// alone: see setup.py.
#include <spirjit/extension.hpp>

#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace py = pybind11;

namespace {

/// y[i] = sum over j of A[i, j] * x[j], every stride in bytes.
struct Problem {
  int64_t rows, cols;
  int64_t aRow, aCol, xStep, yStep;
  bool isDouble;
};

void *symbol(const char *library, const char *name) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  void *found = handle ? dlsym(handle, name) : nullptr;
  if (!found)
    throw std::runtime_error(std::string("matvec: ") + name + " not found in " +
                             library);
  return found;
}

template <typename Function>
Function entry(const char *library, const char *name) {
  return reinterpret_cast<Function>(symbol(library, name));
}

// ----- OpenCL ---------------------------------------------------------------

using cl_int = int32_t;
using cl_uint = uint32_t;
using cl_context = struct _cl_context *;
using cl_command_queue = struct _cl_command_queue *;
using cl_device_id = struct _cl_device_id *;
using cl_program = struct _cl_program *;
using cl_kernel = struct _cl_kernel *;
using cl_mem = struct _cl_mem *;
using cl_event = struct _cl_event *;
constexpr cl_int CL_SUCCESS = 0;
constexpr cl_uint CL_PROGRAM_BUILD_LOG = 0x1183;

const char *const openclSource = R"(
#ifdef MATVEC_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double T;
#else
typedef float T;
#endif
__kernel void matvec(__global const char *A, long aOffset,
                     __global const char *x, long xOffset,
                     __global char *y, long yOffset, long rows, long cols,
                     long aRow, long aCol, long xStep, long yStep) {
  long i = get_global_id(0);
  if (i >= rows)
    return;
  __global const char *a = A + aOffset + i * aRow;
  x += xOffset;
  T sum = 0;
  for (long j = 0; j < cols; ++j)
    sum += *(__global const T *)(a + j * aCol) *
           *(__global const T *)(x + j * xStep);
  *(__global T *)(y + yOffset + i * yStep) = sum;
}
)";

struct OpenCL {
  const char *library = "libOpenCL.so.1";
  using CreateProgram = cl_program (*)(cl_context, cl_uint, const char **,
                                       const size_t *, cl_int *);
  using BuildProgram = cl_int (*)(cl_program, cl_uint, const cl_device_id *,
                                  const char *, void *, void *);
  using BuildInfo = cl_int (*)(cl_program, cl_device_id, cl_uint, size_t,
                               void *, size_t *);
  using CreateKernel = cl_kernel (*)(cl_program, const char *, cl_int *);
  using SetArg = cl_int (*)(cl_kernel, cl_uint, size_t, const void *);
  using SetArgSVM = cl_int (*)(cl_kernel, cl_uint, const void *);
  using Enqueue = cl_int (*)(cl_command_queue, cl_kernel, cl_uint,
                             const size_t *, const size_t *, const size_t *,
                             cl_uint, const cl_event *, cl_event *);
  CreateProgram createProgram =
      entry<CreateProgram>(library, "clCreateProgramWithSource");
  BuildProgram buildProgram = entry<BuildProgram>(library, "clBuildProgram");
  BuildInfo buildInfo = entry<BuildInfo>(library, "clGetProgramBuildInfo");
  CreateKernel createKernel = entry<CreateKernel>(library, "clCreateKernel");
  SetArg setArg = entry<SetArg>(library, "clSetKernelArg");
  SetArgSVM setArgSVM = entry<SetArgSVM>(library, "clSetKernelArgSVMPointer");
  Enqueue enqueue = entry<Enqueue>(library, "clEnqueueNDRangeKernel");
};

void check(cl_int status, const char *what) {
  if (status != CL_SUCCESS)
    throw std::runtime_error(std::string("matvec: ") + what + " failed (" +
                             std::to_string(status) + ")");
}

/// The kernel for one context and element type, built once: a program
/// build takes tens of milliseconds, and the context lives as long as the
/// process.
cl_kernel openclKernel(const OpenCL &cl, const spirjit::device_ref &device,
                       bool isDouble) {
  static std::map<std::pair<cl_context, bool>, cl_kernel> built;
  auto context = device.context<cl_context>();
  auto found = built.find({context, isDouble});
  if (found != built.end())
    return found->second;
  cl_int status = CL_SUCCESS;
  const char *source = openclSource;
  cl_program program = cl.createProgram(context, 1, &source, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  auto id = device.native_device<cl_device_id>();
  if (cl.buildProgram(program, 1, &id, isDouble ? "-DMATVEC_DOUBLE" : "",
                      nullptr, nullptr) != CL_SUCCESS) {
    size_t size = 0;
    cl.buildInfo(program, id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    cl.buildInfo(program, id, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr);
    throw std::runtime_error("matvec: the OpenCL build failed:\n" + log);
  }
  cl_kernel kernel = cl.createKernel(program, "matvec", &status);
  check(status, "clCreateKernel");
  return built[{context, isDouble}] = kernel;
}

/// Binds an array at argument `index` (its memory) and `index + 1` (the
/// byte offset of its first element in that memory).
void bindArray(const OpenCL &cl, cl_kernel kernel, cl_uint index,
               const spirjit::array_view &array) {
  int64_t offset = 0;
  if (array.data()) {
    check(cl.setArgSVM(kernel, index, array.data()),
          "clSetKernelArgSVMPointer");
  } else {
    auto memory = array.memory<cl_mem>();
    check(cl.setArg(kernel, index, sizeof memory, &memory), "clSetKernelArg");
    offset = array.memory_offset();
  }
  check(cl.setArg(kernel, index + 1, sizeof offset, &offset), "clSetKernelArg");
}

void openclMatvec(const spirjit::array_view &A, const spirjit::array_view &x,
                  const spirjit::array_view &y, const Problem &p) {
  static const OpenCL cl;
  cl_kernel kernel = openclKernel(cl, A.device(), p.isDouble);
  bindArray(cl, kernel, 0, A);
  bindArray(cl, kernel, 2, x);
  bindArray(cl, kernel, 4, y);
  const int64_t values[] = {p.rows, p.cols, p.aRow, p.aCol, p.xStep, p.yStep};
  for (cl_uint i = 0; i < 6; ++i)
    check(cl.setArg(kernel, 6 + i, sizeof(int64_t), &values[i]),
          "clSetKernelArg");
  size_t global = static_cast<size_t>(p.rows);
  // spirjit's in-order queue: after the work that made A and x.
  check(cl.enqueue(A.queue<cl_command_queue>(), kernel, 1, nullptr, &global,
                   nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
}

// ----- CUDA -----------------------------------------------------------------

using CUresult = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;

/// One thread a row; the PTX of the OpenCL kernel above, for T = float
/// (f32) and T = double (f64). The driver compiles it for the GPU at hand.
const char *const ptxTemplate = R"(
.version 7.0
.target sm_50
.address_size 64

.visible .entry matvec(
    .param .u64 pA, .param .u64 px, .param .u64 py,
    .param .u64 pRows, .param .u64 pCols,
    .param .u64 pARow, .param .u64 pACol, .param .u64 pXStep, .param .u64 pYStep)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<16>;
    .reg .fTT %f<4>;

    ld.param.u64 %rd1, [pA];
    ld.param.u64 %rd2, [px];
    ld.param.u64 %rd3, [py];
    ld.param.u64 %rd4, [pRows];
    ld.param.u64 %rd5, [pCols];
    ld.param.u64 %rd6, [pARow];
    ld.param.u64 %rd7, [pACol];
    ld.param.u64 %rd8, [pXStep];
    ld.param.u64 %rd9, [pYStep];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    cvt.u64.u32 %rd10, %r3;
    mad.wide.u32 %rd10, %r1, %r2, %rd10;
    setp.ge.s64 %p1, %rd10, %rd4;
    @%p1 bra DONE;
    mad.lo.s64 %rd11, %rd10, %rd6, %rd1;
    mov.u64 %rd12, %rd2;
    mov.u64 %rd13, 0;
    mov.fTT %f1, ZERO;
LOOP:
    setp.ge.s64 %p2, %rd13, %rd5;
    @%p2 bra STORE;
    ld.global.fTT %f2, [%rd11];
    ld.global.fTT %f3, [%rd12];
    fma.rn.fTT %f1, %f2, %f3, %f1;
    add.s64 %rd11, %rd11, %rd7;
    add.s64 %rd12, %rd12, %rd8;
    add.s64 %rd13, %rd13, 1;
    bra.uni LOOP;
STORE:
    mad.lo.s64 %rd14, %rd10, %rd9, %rd3;
    st.global.fTT [%rd14], %f1;
DONE:
    ret;
}
)";

std::string ptxFor(bool isDouble) {
  std::string ptx = ptxTemplate;
  auto replace = [&](const std::string &from, const std::string &to) {
    for (size_t at = ptx.find(from); at != std::string::npos;
         at = ptx.find(from, at + to.size()))
      ptx.replace(at, from.size(), to);
  };
  replace("fTT", isDouble ? "f64" : "f32");
  replace("ZERO", isDouble ? "0d0000000000000000" : "0f00000000");
  return ptx;
}

struct CUDA {
  const char *library = "libcuda.so.1";
  using PushContext = CUresult (*)(CUcontext);
  using PopContext = CUresult (*)(CUcontext *);
  using LoadData = CUresult (*)(CUmodule *, const void *);
  using GetFunction = CUresult (*)(CUfunction *, CUmodule, const char *);
  using Launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned,
                              unsigned, unsigned, unsigned, unsigned, CUstream,
                              void **, void **);
  using ErrorName = CUresult (*)(CUresult, const char **);
  PushContext pushContext = entry<PushContext>(library, "cuCtxPushCurrent_v2");
  PopContext popContext = entry<PopContext>(library, "cuCtxPopCurrent_v2");
  LoadData loadData = entry<LoadData>(library, "cuModuleLoadData");
  GetFunction getFunction = entry<GetFunction>(library, "cuModuleGetFunction");
  Launch launch = entry<Launch>(library, "cuLaunchKernel");
  ErrorName errorName = entry<ErrorName>(library, "cuGetErrorName");

  void check(CUresult result, const char *what) const {
    if (result == 0)
      return;
    const char *name = nullptr;
    errorName(result, &name);
    throw std::runtime_error(std::string("matvec: ") + what + " failed (" +
                             (name ? name : std::to_string(result)) + ")");
  }
};

void cudaMatvec(const spirjit::array_view &A, const spirjit::array_view &x,
                const spirjit::array_view &y, const Problem &p) {
  static const CUDA cu;
  auto context = A.device().context<CUcontext>();
  cu.check(cu.pushContext(context), "cuCtxPushCurrent");
  // The context goes back whatever happens below.
  struct Pop {
    const CUDA &cu;
    ~Pop() {
      CUcontext popped;
      cu.popContext(&popped);
    }
  } pop{cu};
  static std::map<std::pair<CUcontext, bool>, CUfunction> loaded;
  CUfunction &function = loaded[{context, p.isDouble}];
  if (!function) {
    std::string ptx = ptxFor(p.isDouble);
    CUmodule module = nullptr;
    cu.check(cu.loadData(&module, ptx.c_str()), "cuModuleLoadData");
    cu.check(cu.getFunction(&function, module, "matvec"),
             "cuModuleGetFunction");
  }
  uint64_t a = reinterpret_cast<uintptr_t>(A.data()),
           xs = reinterpret_cast<uintptr_t>(x.data()),
           ys = reinterpret_cast<uintptr_t>(y.data());
  int64_t values[] = {p.rows, p.cols, p.aRow, p.aCol, p.xStep, p.yStep};
  void *parameters[] = {&a,         &xs,        &ys,
                        &values[0], &values[1], &values[2],
                        &values[3], &values[4], &values[5]};
  unsigned block = 128;
  auto grid = static_cast<unsigned>((p.rows + block - 1) / block);
  // spirjit's stream: after the work that made A and x.
  cu.check(cu.launch(function, grid, 1, 1, block, 1, 1, 0, A.queue<CUstream>(),
                     parameters, nullptr),
           "cuLaunchKernel");
}

// ----- the native CPU device ------------------------------------------------

template <typename T>
void hostRows(const char *A, const char *x, char *y, const Problem &p) {
  for (int64_t i = 0; i < p.rows; ++i) {
    T sum = 0;
    for (int64_t j = 0; j < p.cols; ++j)
      sum += *reinterpret_cast<const T *>(A + i * p.aRow + j * p.aCol) *
             *reinterpret_cast<const T *>(x + j * p.xStep);
    *reinterpret_cast<T *>(y + i * p.yStep) = sum;
  }
}

void hostMatvec(const spirjit::array_view &A, const spirjit::array_view &x,
                const spirjit::array_view &y, const Problem &p) {
  A.device().synchronize(); // A and x may still be being computed
  auto *a = static_cast<const char *>(A.host_data());
  auto *v = static_cast<const char *>(x.host_data());
  auto *out = static_cast<char *>(y.host_data());
  if (!a || !v || !out)
    throw std::runtime_error("matvec: a native array without host memory");
  if (p.isDouble)
    hostRows<double>(a, v, out, p);
  else
    hostRows<float>(a, v, out, p);
}

// ----- the module -----------------------------------------------------------

spirjit::array_view matvec(const spirjit::array_view &A,
                           const spirjit::array_view &x) {
  if (A.ndim() != 2 || x.ndim() != 1)
    throw py::value_error("matvec: A must be 2-D and x 1-D, not " +
                          std::to_string(A.ndim()) + "-D and " +
                          std::to_string(x.ndim()) + "-D");
  if (A.shape(1) != x.shape(0))
    throw py::value_error("matvec: A has " + std::to_string(A.shape(1)) +
                          " columns and x " + std::to_string(x.shape(0)) +
                          " elements");
  if (A.typestr() != x.typestr() || !(A.is<float>() || A.is<double>()))
    throw py::type_error("matvec: A and x must both be float32 or both "
                         "float64, not " +
                         A.typestr() + " and " + x.typestr());
  const spirjit::device_ref &device = A.device();
  if (x.device().filter_string() != device.filter_string())
    throw py::value_error("matvec: A is on " + device.filter_string() +
                          " and x on " + x.device().filter_string());
  spirjit::array_view y = spirjit::empty({A.shape(0)}, A.typestr(), device);
  Problem p{A.shape(0),   A.shape(1),   A.strides(0),  A.strides(1),
            x.strides(0), y.strides(0), A.is<double>()};
  if (p.rows == 0)
    return y;
  if (device.backend() == "opencl")
    openclMatvec(A, x, y, p);
  else if (device.backend() == "cuda")
    cudaMatvec(A, x, y, p);
  else if (device.backend() == "native")
    hostMatvec(A, x, y, p);
  else {
    PyErr_SetString(PyExc_NotImplementedError,
                    ("matvec: this example has no kernel for " +
                     device.backend() + " devices (" + device.filter_string() +
                     ")")
                        .c_str());
    throw py::error_already_set();
  }
  return y;
}

/// What the header gives of an array, as a dict (for the tests and docs).
py::dict describe(const spirjit::array_view &array) {
  py::dict out;
  py::tuple shape(array.ndim()), strides(array.ndim());
  for (int d = 0; d < array.ndim(); ++d) {
    shape[d] = py::int_(array.shape(d));
    strides[d] = py::int_(array.strides(d));
  }
  out["shape"] = shape;
  out["strides"] = strides;
  out["typestr"] = array.typestr();
  out["kind"] = std::string(1, array.kind());
  out["itemsize"] = array.itemsize();
  out["c_contiguous"] = array.is_c_contiguous();
  out["has_pointer"] = array.data() != nullptr || array.memory() != nullptr;
  out["host_data"] = reinterpret_cast<uintptr_t>(array.host_data());
  out["backend"] = array.device().backend();
  out["filter_string"] = array.device().filter_string();
  out["device_type"] = array.device().device_type();
  out["has_queue"] = array.queue() != nullptr;
  return out;
}

} // namespace

PYBIND11_MODULE(matvec, m) {
  m.doc() = "y = A @ x on spirjit DeviceArrays (float32, float64), on the "
            "arrays' own queue or stream";
  m.def("matvec", &matvec, py::arg("A"), py::arg("x"),
        "A @ x for a 2-D A and a 1-D x on one device: a new DeviceArray");
  m.def("describe", &describe, py::arg("array"),
        "what spirjit/extension.hpp gives of a DeviceArray");
  m.def(
      "device_of", [](const spirjit::device_ref &device) { return device; },
      py::arg("device"), "a spirjit.Device through device_ref and back");
}
