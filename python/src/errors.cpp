// loom.Error: every loom::Error (bad input, a failed operation) reaches Python as this exception
// with the message the CLI prints (file and line, or the argument, named).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "loom/core/error.hpp"

namespace loom::python {

void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace loom::python
