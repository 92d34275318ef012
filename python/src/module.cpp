// loom._loom: the C++ side of the `loom` Python package. Each part of the API is bound by its own
// file (bindings.hpp); python/loom/__init__.py re-exports them.
#include "bindings.hpp"
#include "loom/core/log.hpp"

PYBIND11_MODULE(_loom, m) {
  m.doc() = "Loom's C++ engine for Python: graph stores, loaders, kernels, communication, embeddings";
  m.attr("__version__") = LOOM_VERSION;  // the CMake project's version
  loom::python::bind_errors(m);
  loom::python::bind_data(m);
  loom::python::bind_ops(m);
  loom::python::bind_loader(m);
  loom::python::bind_comm(m);
  loom::python::bind_embed(m);
  loom::python::bind_commands(m);
  m.def(
      "set_log_level",
      [](const std::string& level) {
        loom::core::init_logging(level);
        auto& world = loom::python::python_world();
        loom::core::set_log_rank(world.rank(), world.size());
      },
      pybind11::arg("level"), "trace|debug|info (default)|warn|error|off; under mpirun ranks > 0 log warnings only");
}
