// The user's file and line that called into spirjit (UserSite.h).
#include "python/bindings/UserSite.h"

#include "launch/ArrayGraph.h"

#include <pybind11/pybind11.h>
// (after Python.h, which pybind11 includes)
#include <frameobject.h>

#include <cstring>
#include <string>
#include <unordered_map>

namespace py = pybind11;

namespace spirjit::python {

namespace {

/// What recording needs of a frame at one instruction: whether its code
/// is spirjit's own (then the user's line is further out), else the site.
/// Finding the line walks the code's line table (a tenth of recording
/// `a + b`), so each (code, instruction) pair seen is kept; the code
/// objects kept alive stay few (a program's lines that operate on
/// arrays), and the table starts again past 4096.
struct FrameSite {
  bool ours = false;
  Site site;
};

const FrameSite &frameSite(PyFrameObject *frame, PyCodeObject *code) {
  static std::string package = [] {
    py::object spirjit = py::module_::import("spirjit");
    py::object os = py::module_::import("os.path");
    return os.attr("dirname")(spirjit.attr("__file__")).cast<std::string>();
  }();
  struct Hash {
    size_t operator()(const std::pair<PyCodeObject *, int> &k) const {
      return std::hash<const void *>()(k.first) ^ (size_t(k.second) << 20);
    }
  };
  static auto &sites =
      *new std::unordered_map<std::pair<PyCodeObject *, int>, FrameSite,
                              Hash>();
  auto key = std::make_pair(code, PyFrame_GetLasti(frame));
  auto it = sites.find(key);
  if (it != sites.end())
    return it->second;
  if (sites.size() >= 4096) {
    for (auto &entry : sites)
      Py_DECREF(entry.first.first);
    sites.clear();
  }
  FrameSite found;
  const char *name = PyUnicode_AsUTF8(code->co_filename);
  if (!name)
    PyErr_Clear();
  found.ours =
      name && std::strncmp(name, package.c_str(), package.size()) == 0;
  if (!found.ours) {
    found.site.file = launch::internFileName(name ? name : "<unknown>");
    found.site.line = PyFrame_GetLineNumber(frame);
  }
  Py_INCREF(code); // the key must not be reused by another code object
  return sites.emplace(key, found).first->second;
}

} // namespace

Site recordingSite() {
  PyFrameObject *frame = PyEval_GetFrame();
  if (frame)
    Py_INCREF(frame);
  while (frame) {
    PyCodeObject *code = PyFrame_GetCode(frame);
    const FrameSite &at = frameSite(frame, code);
    Py_DECREF(code);
    if (!at.ours) {
      Py_DECREF(frame);
      return at.site;
    }
    PyFrameObject *back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return Site();
}


} // namespace spirjit::python
