// loom.Error: every loom::Error (bad input, a failed operation) reaches Python as this exception
// with the message the CLI prints (file and line, or the argument, named), except that an option
// is named by its Python keyword (--batch-size -> batch_size: every Python API takes keywords).
// loom.AgreedError, its subclass, is a failure every rank raised together at a collective check
// (comm::AgreedError: the message names the failing rank), which needs no job abort.
#include <cctype>
#include <string>

#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "loom/comm/communicator.hpp"
#include "loom/core/error.hpp"

namespace loom::python {

namespace {

// "--batch-size" -> "batch_size" wherever an option is named (a "--" after a space, a quote or
// the start, followed by a lower-case letter).
std::string with_python_keywords(const std::string& message) {
  std::string out;
  out.reserve(message.size());
  for (std::size_t i = 0; i < message.size(); ++i) {
    const bool option = message.compare(i, 2, "--") == 0 && i + 2 < message.size() &&
                        std::islower(static_cast<unsigned char>(message[i + 2])) &&
                        (i == 0 || message[i - 1] == ' ' || message[i - 1] == '\'' || message[i - 1] == '(');
    if (!option) {
      out += message[i];
      continue;
    }
    for (i += 2; i < message.size() && (std::isalnum(static_cast<unsigned char>(message[i])) || message[i] == '-'); ++i)
      out += message[i] == '-' ? '_' : message[i];
    --i;
  }
  return out;
}

py::exception<Error>* g_error = nullptr;
py::exception<comm::AgreedError>* g_agreed = nullptr;

}  // namespace

void raise_with_cli_message(const Error& e) {
  const bool agreed = dynamic_cast<const comm::AgreedError*>(&e) != nullptr;
  PyErr_SetString(agreed ? g_agreed->ptr() : g_error->ptr(), e.what());
  throw py::error_already_set();
}

void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<comm::AgreedError> agreed(m, "AgreedError", error.ptr());
  g_error = &error;
  g_agreed = &agreed;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const comm::AgreedError& e) {
      PyErr_SetString(agreed.ptr(), with_python_keywords(e.what()).c_str());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), with_python_keywords(e.what()).c_str());
    }
  });
}

}  // namespace loom::python
