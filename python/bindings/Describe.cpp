#include "python/bindings/Describe.h"

#include <map>

namespace py = pybind11;

namespace spirjit::python {
namespace {

ConstValue toConst(const py::handle &value) {
  // The describing Python code sends ("kind", payload) pairs.
  auto pair = value.cast<py::tuple>();
  std::string kind = pair[0].cast<std::string>();
  py::handle payload = pair[1];
  if (kind == "none")
    return ConstValue::none();
  if (kind == "bool")
    return ConstValue::ofBool(payload.cast<bool>());
  if (kind == "int")
    return ConstValue::ofInt(payload.cast<int64_t>());
  if (kind == "float")
    return ConstValue::ofFloat(payload.cast<double>());
  if (kind == "complex") {
    auto parts = payload.cast<py::tuple>();
    return ConstValue::ofComplex(parts[0].cast<double>(),
                                 parts[1].cast<double>());
  }
  if (kind == "str")
    return ConstValue::ofText(ConstValue::Kind::Str,
                              payload.cast<std::string>());
  if (kind == "code")
    return ConstValue::ofText(ConstValue::Kind::Code,
                              payload.cast<std::string>());
  if (kind == "tuple") {
    ConstValue c;
    c.kind = ConstValue::Kind::Tuple;
    for (py::handle item : payload)
      c.items.push_back(toConst(item));
    return c;
  }
  return ConstValue::ofText(ConstValue::Kind::Other,
                            payload.cast<std::string>());
}

GlobalValue toGlobal(const py::handle &value) {
  auto d = value.cast<py::dict>();
  GlobalValue g;
  std::string kind = d["kind"].cast<std::string>();
  g.kind = kind == "number"    ? GlobalValue::Kind::Number
           : kind == "module"  ? GlobalValue::Kind::Module
           : kind == "builtin" ? GlobalValue::Kind::Builtin
           : kind == "object"  ? GlobalValue::Kind::Object
           : kind == "device_function" ? GlobalValue::Kind::DeviceFunction
           : kind == "namedtuple" ? GlobalValue::Kind::NamedTupleClass
           : kind == "array"      ? GlobalValue::Kind::Array
                               : GlobalValue::Kind::Unknown;
  g.name = d["name"].cast<std::string>();
  if (d.contains("value"))
    g.value = toConst(d["value"]);
  if (d.contains("dtype"))
    g.dtype = d["dtype"].cast<std::string>();
  if (d.contains("shape"))
    for (py::handle extent : d["shape"])
      g.shape.push_back(extent.cast<int64_t>());
  if (d.contains("data"))
    g.data = d["data"].cast<std::string>();
  return g;
}

std::vector<std::string> strings(const py::handle &list) {
  std::vector<std::string> out;
  for (py::handle item : list)
    out.push_back(item.cast<std::string>());
  return out;
}

} // namespace

FunctionDescription toFunctionDescription(const py::dict &d) {
  FunctionDescription f;
  f.pythonMajor = d["python_major"].cast<int>();
  f.pythonMinor = d["python_minor"].cast<int>();
  f.name = d["name"].cast<std::string>();
  f.qualifiedName = d["qualname"].cast<std::string>();
  f.filename = d["filename"].cast<std::string>();
  f.firstLine = d["firstlineno"].cast<int>();
  f.argCount = d["argcount"].cast<int>();
  std::string code = d["code"].cast<py::bytes>();
  f.code.assign(code.begin(), code.end());
  for (py::handle c : d["consts"])
    f.consts.push_back(toConst(c));
  f.names = strings(d["names"]);
  f.varnames = strings(d["varnames"]);
  f.cellvars = strings(d["cellvars"]);
  f.freevars = strings(d["freevars"]);
  for (py::handle entry : d["lines"]) {
    auto t = entry.cast<py::tuple>();
    f.lines.push_back({t[0].cast<int>(), t[1].cast<int>(),
                       t[2].is_none() ? 0 : t[2].cast<int>()});
  }
  f.hasExceptionTable = d["has_exception_table"].cast<bool>();
  f.codeFlags = d["flags"].cast<int>();
  for (auto item : d["globals"].cast<py::dict>())
    f.globals[item.first.cast<std::string>()] = toGlobal(item.second);
  for (py::handle value : d["closure"])
    f.closure.push_back(toGlobal(value));
  if (d.contains("module_members"))
    for (auto item : d["module_members"].cast<py::dict>())
      f.moduleMembers[item.first.cast<std::string>()] = toGlobal(item.second);
  if (d.contains("library"))
    for (auto item : d["library"].cast<py::dict>())
      f.library[item.first.cast<std::string>()] =
          item.second.cast<std::string>();
  for (auto item : d["annotations"].cast<py::dict>())
    f.annotations[item.first.cast<std::string>()] = toGlobal(item.second);
  if (d.contains("signatures"))
    f.signatures = strings(d["signatures"]);
  if (d.contains("jit"))
    f.jitFunction = d["jit"].cast<bool>();
  if (d.contains("defaults"))
    for (py::handle value : d["defaults"])
      f.defaults.push_back(toConst(value));
  if (d.contains("elementwise"))
    f.elementwise = d["elementwise"].cast<bool>();
  if (d.contains("nested_code"))
    for (auto item : d["nested_code"].cast<py::dict>())
      f.nestedCode[item.first.cast<std::string>()] =
          std::make_shared<FunctionDescription>(
              toFunctionDescription(item.second.cast<py::dict>()));
  if (d.contains("device_functions"))
    for (auto item : d["device_functions"].cast<py::dict>())
      f.deviceFunctions[item.first.cast<std::string>()] =
          std::make_shared<FunctionDescription>(
              toFunctionDescription(item.second.cast<py::dict>()));
  return f;
}

const Type *typeOfDType(const py::dtype &dtype) {
  // Native byte order: '=' or '|' (no order), or the host's own letter.
  char order = dtype.byteorder();
  char host = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? '<' : '>';
  if (order != '=' && order != '|' && order != host)
    return nullptr;
  char kind = dtype.kind();
  int bits = static_cast<int>(dtype.itemsize()) * 8;
  switch (kind) {
  case 'b':
    return types::boolean();
  case 'i':
    return types::integer(bits, true);
  case 'u':
    return types::integer(bits, false);
  case 'f':
    return bits == 32 || bits == 64 ? types::floating(bits) : nullptr;
  case 'c':
    return bits == 64 || bits == 128 ? types::complex(bits / 2) : nullptr;
  default:
    return nullptr;
  }
}

const std::string &dtypeName(const py::dtype &dtype) {
  static std::map<PyObject *, std::string> names;
  auto it = names.find(dtype.ptr());
  if (it != names.end())
    return it->second;
  dtype.inc_ref(); // the key must outlive the entry
  return names.emplace(dtype.ptr(), py::str(dtype).cast<std::string>())
      .first->second;
}

} // namespace spirjit::python
