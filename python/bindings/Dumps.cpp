// The dump tool's and the tests' windows on the compiler: each stage of a
// kernel, a jit function's host code and its prange kernels, or the fused
// array kernels, printed as the compile reaches it; the stage names; the
// array-operation table (compiler/ArrayOps.def).
#include "python/bindings/Dumps.h"

#include "compiler/ArrayOps.h"
#include "compiler/Pipeline.h"
#include "launch/ArrayGraph.h"
#include "launch/HostCall.h"
#include "python/bindings/Describe.h"
#include "python/bindings/Errors.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <functional>
#include <set>

namespace py = pybind11;
using namespace spirjit;
using namespace spirjit::python;

namespace {

/// What both dump entry points take: a device of `image` format, the
/// signature's argument types, and options that print each wanted stage
/// through `print(stage name, text)`.
struct DumpRequest {
  DeviceCapabilities device;
  types::Signature signature;
  std::set<Stage> wanted;
};

DumpRequest parseDumpRequest(const std::string &image,
                             const std::string &signature,
                             const std::vector<std::string> &stages) {
  DumpRequest request;
  if (!imageFormatByName(image, request.device.imageFormats.front()))
    throw PythonError("InvalidArgumentError", "unknown image format '" + image +
                                                  "': use spirv, spir or ptx");
  try {
    request.signature = types::parseSignature(signature);
  } catch (const std::invalid_argument &e) {
    throw PythonError("InvalidArgumentError", e.what());
  }
  for (const std::string &name : stages) {
    try {
      request.wanted.insert(stageByName(name));
    } catch (const std::invalid_argument &e) {
      throw PythonError("InvalidArgumentError", e.what());
    }
  }
  return request;
}

/// Options printing `request`'s stages through `print(name, text)`.
CompileOptions
dumpOptions(const DumpRequest &request,
            std::function<void(const char *, const std::string &)> print) {
  CompileOptions options;
  options.wantsDump = [&request](Stage stage) {
    return request.wanted.count(stage) != 0;
  };
  options.dump = [print](Stage stage, const std::string &text) {
    for (const StageInfo &info : allStages())
      if (info.stage == stage)
        print(info.name, text);
  };
  return options;
}

/// Compiles for the dump tool, calling `print(stage, text)` as each wanted
/// stage is reached, so the stages before a failure are still shown.
void dumpStages(const py::dict &description, const std::string &signature,
                int dimensions, bool ndRange,
                const std::vector<std::string> &stages,
                const py::function &print, const std::string &image,
                bool boundscheck, bool debug,
                const std::vector<int64_t> &localExtents, bool disjoint) {
  DumpRequest dump = parseDumpRequest(image, signature, stages);
  FunctionDescription function = toFunctionDescription(description);
  KernelRequest request;
  request.function = &function;
  request.argumentTypes = dump.signature.arguments;
  request.itemDimensions = dimensions;
  request.ndRange = ndRange;
  size_t localDimensions = 0;
  for (const Type *t : request.argumentTypes)
    if (t->kind == TypeKind::Array && t->memorySpace == MemorySpace::Local)
      localDimensions += static_cast<size_t>(t->ndim);
  if (!localExtents.empty() && localExtents.size() != localDimensions)
    throw PythonError("InvalidArgumentError",
                      "--local-shape gives " +
                          std::to_string(localExtents.size()) +
                          " extents, but the signature's local arrays have " +
                          std::to_string(localDimensions) + " dimensions");
  request.localExtents = localExtents;
  request.disjointArrays = disjoint;
  CompileOptions options =
      dumpOptions(dump, [&](const char *name, const std::string &text) {
        print(name, text);
      });
  options.boundscheck = boundscheck || debug;
  options.debug = debug;
  // For a device with fp64 that takes `image`.
  compileKernel(request, dump.device, options);
}

/// The dump tool for a jit function: the host code's stages, then each
/// prange loop's kernel at every stage; `print(stage, text, what)`.
/// `describe(operations=...)` describes it (launch::JitFunction::Describe).
void dumpHostStages(const py::function &describe, const std::string &signature,
                    const std::vector<std::string> &stages,
                    const py::function &print, const std::string &image,
                    bool disjoint) {
  DumpRequest dump = parseDumpRequest(image, signature, stages);
  auto described = [&](const std::vector<std::string> &operations) {
    return toFunctionDescription(
        describe(py::arg("operations") = operations).cast<py::dict>());
  };
  FunctionDescription function = described({});
  auto printing = [&](const std::string &what) {
    return dumpOptions(
        dump, [&print, what](const char *name, const std::string &text) {
          print(name, text, what);
        });
  };
  launch::defineHostHelpers();
  HostRequest request;
  request.function = &function;
  request.argumentTypes = dump.signature.arguments;
  // The tool has no device: a PTX image's is a GPU, the others' a CPU
  // (SPIRJIT_PRANGE_COALESCE=always|never overrides, as for calls).
  request.mapRows = launch::mapsRows(image == "ptx" ? "gpu" : "cpu");
  // The host code's stages wait until its compile ends (and are shown
  // before its error too): one that needs the library's operations starts
  // again from a description with them (LibraryOperationsNeeded), and
  // prints its stages once.
  std::vector<std::pair<std::string, std::string>> held;
  CompileOptions holding = dumpOptions(
      dump, [&held](const char *name, const std::string &text) {
        held.emplace_back(name, text);
      });
  auto show = [&] {
    for (const auto &[name, text] : held)
      print(name, text, "jit: " + function.name);
  };
  CompiledHost host;
  try {
    try {
      host = compileHost(request, holding);
    } catch (const LibraryOperationsNeeded &needed) {
      held.clear();
      function = described(needed.operations);
      host = compileHost(request, holding);
    }
  } catch (...) {
    show();
    throw;
  }
  show();
  for (const Parfor &parfor : host.parfors) {
    KernelRequest kernel;
    kernel.function = parfor.kernel.get();
    kernel.argumentTypes = parfor.kernelArgumentTypes;
    kernel.itemDimensions = parfor.launchDims();
    kernel.disjointArrays = disjoint;
    compileKernel(kernel, dump.device,
                  printing("kernel: " + parfor.kernel->name));
  }
}

/// The dump tool's --arrays for another image: every fused kernel the
/// process compiled so far, compiled again for `image` (the arrays ran on
/// the default device); `print(stage, text, what)`.
void dumpArrayKernels(const std::vector<std::string> &stages,
                      const py::function &print, const std::string &image) {
  DumpRequest dump = parseDumpRequest(image, "()", stages);
  for (const auto &[name, request] : launch::arrayKernelRequests()) {
    std::string what = "array kernel: " + name + ", " +
                       types::formatArguments(request.argumentTypes) +
                       (request.disjointArrays ? " noalias" : "");
    compileKernel(request, dump.device,
                  dumpOptions(dump, [&](const char *stage,
                                        const std::string &text) {
                    print(stage, text, what);
                  }));
  }
}

} // namespace

void spirjit::python::addStageDumps(py::module_ &m) {
  m.def("dump_stages", &dumpStages, py::arg("description"),
        py::arg("signature"), py::arg("dimensions"), py::arg("nd_range"),
        py::arg("stages"), py::arg("print"), py::arg("image") = "spirv",
        py::arg("boundscheck") = false, py::arg("debug") = false,
        py::arg("local_extents") = std::vector<int64_t>{},
        py::arg("disjoint") = false);
  m.def("dump_host_stages", &dumpHostStages, py::arg("describe"),
        py::arg("signature"), py::arg("stages"), py::arg("print"),
        py::arg("image") = "spirv", py::arg("disjoint") = false);
  m.def("dump_array_kernels", &dumpArrayKernels, py::arg("stages"),
        py::arg("print"), py::arg("image"));
  m.def("stage_names", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const StageInfo &info : allStages())
      out.push_back({info.name, info.summary});
    return out;
  });
  // compiler/ArrayOps.def, for DeviceArrays and the tests: one dict a row.
  m.def("array_ops", [] {
    py::list out;
    for (const ArrayOp &op : arrayOps()) {
      py::dict row;
      row["numpy"] = op.numpy;
      row["aliases"] = aliasesOf(op);
      row["array_api"] = op.arrayApi;
      row["arity"] = op.arity;
      row["kind"] = arrayOpKindName(op.kind);
      row["loops"] = op.loops;
      row["result"] = arrayOpResultName(op.result);
      row["nan"] = arrayOpNaNName(op.nan);
      row["identity"] = op.identity;
      row["scalar"] = arrayOpScalarName(op.scalar);
      row["scalar_op"] = op.scalarOp;
      out.append(row);
    }
    return out;
  });
}
