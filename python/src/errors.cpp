// loom.Error: every loom::Error (bad input, a failed operation) reaches Python as this exception
// with the message the CLI prints (file and line, or the argument, named). loom.AgreedError, its
// subclass, is a failure every rank raised together at a collective check (comm::AgreedError: the
// message names the failing rank), which needs no job abort.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "loom/comm/communicator.hpp"
#include "loom/core/error.hpp"

namespace loom::python {

void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<comm::AgreedError> agreed(m, "AgreedError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const comm::AgreedError& e) {
      PyErr_SetString(agreed.ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace loom::python
