#include "Fixtures.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>

#include <stdexcept>

namespace spirjit::testing {
namespace {

ConstValue toConst(const llvm::json::Value &value) {
  const llvm::json::Array &pair = *value.getAsArray();
  std::string kind = pair[0].getAsString()->str();
  const llvm::json::Value &payload = pair[1];
  if (kind == "none")
    return ConstValue::none();
  if (kind == "bool")
    return ConstValue::ofBool(*payload.getAsBoolean());
  if (kind == "int")
    return ConstValue::ofInt(*payload.getAsInteger());
  if (kind == "float")
    return ConstValue::ofFloat(*payload.getAsNumber());
  if (kind == "complex") {
    const llvm::json::Array &parts = *payload.getAsArray();
    return ConstValue::ofComplex(*parts[0].getAsNumber(),
                                 *parts[1].getAsNumber());
  }
  if (kind == "tuple") {
    ConstValue c;
    c.kind = ConstValue::Kind::Tuple;
    for (const llvm::json::Value &item : *payload.getAsArray())
      c.items.push_back(toConst(item));
    return c;
  }
  ConstValue::Kind k = kind == "str"    ? ConstValue::Kind::Str
                       : kind == "code" ? ConstValue::Kind::Code
                                        : ConstValue::Kind::Other;
  return ConstValue::ofText(k, payload.getAsString()->str());
}

GlobalValue toGlobal(const llvm::json::Object &object) {
  GlobalValue g;
  std::string kind = object.getString("kind")->str();
  g.kind = kind == "number"    ? GlobalValue::Kind::Number
           : kind == "module"  ? GlobalValue::Kind::Module
           : kind == "builtin" ? GlobalValue::Kind::Builtin
           : kind == "object"  ? GlobalValue::Kind::Object
           : kind == "device_function" ? GlobalValue::Kind::DeviceFunction
           : kind == "namedtuple" ? GlobalValue::Kind::NamedTupleClass
                               : GlobalValue::Kind::Unknown;
  g.name = object.getString("name")->str();
  if (const llvm::json::Value *value = object.get("value"))
    g.value = toConst(*value);
  if (auto dtype = object.getString("dtype"))
    g.dtype = dtype->str();
  return g;
}

std::vector<std::string> strings(const llvm::json::Array &array) {
  std::vector<std::string> out;
  for (const llvm::json::Value &v : array)
    out.push_back(v.getAsString()->str());
  return out;
}

} // namespace

FunctionDescription loadFixture(const std::string &version,
                                const std::string &name) {
  std::string path = std::string(SPIRJIT_FIXTURE_DIR) + "/" + version + "/" +
                     name + ".json";
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    throw std::runtime_error("cannot read fixture " + path);
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    throw std::runtime_error("bad JSON in " + path);
  const llvm::json::Object &o = *parsed->getAsObject();
  FunctionDescription f;
  f.pythonMajor = version[2] - '0';
  f.pythonMinor = std::stoi(version.substr(3));
  f.name = o.getString("name")->str();
  f.qualifiedName = o.getString("qualname")->str();
  f.filename = o.getString("filename")->str();
  f.firstLine = static_cast<int>(*o.getInteger("firstlineno"));
  f.argCount = static_cast<int>(*o.getInteger("argcount"));
  std::string hex = o.getString("code")->str();
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    f.code.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  for (const llvm::json::Value &c : *o.getArray("consts"))
    f.consts.push_back(toConst(c));
  f.names = strings(*o.getArray("names"));
  f.varnames = strings(*o.getArray("varnames"));
  f.cellvars = strings(*o.getArray("cellvars"));
  f.freevars = strings(*o.getArray("freevars"));
  for (const llvm::json::Value &entry : *o.getArray("lines")) {
    const llvm::json::Array &t = *entry.getAsArray();
    auto line = t[2].getAsInteger();
    f.lines.push_back({static_cast<int>(*t[0].getAsInteger()),
                       static_cast<int>(*t[1].getAsInteger()),
                       line ? static_cast<int>(*line) : 0});
  }
  f.hasExceptionTable = *o.getBoolean("has_exception_table");
  // Fixtures written before "flags" was described have none.
  f.codeFlags = static_cast<int>(o.getInteger("flags").value_or(0));
  for (const auto &entry : *o.getObject("globals"))
    f.globals[entry.first.str()] = toGlobal(*entry.second.getAsObject());
  for (const llvm::json::Value &v : *o.getArray("closure"))
    f.closure.push_back(toGlobal(*v.getAsObject()));
  for (const auto &entry : *o.getObject("annotations"))
    f.annotations[entry.first.str()] = toGlobal(*entry.second.getAsObject());
  return f;
}

} // namespace spirjit::testing
