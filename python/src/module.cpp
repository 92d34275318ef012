// loom._loom: the C++ side of the `loom` Python package. Each part of the API is bound by its own
// file (bindings.hpp); python/loom/__init__.py re-exports them.
#include "bindings.hpp"

PYBIND11_MODULE(_loom, m) {
  m.doc() = "Loom's C++ engine for Python: graph stores, loaders, kernels, communication, embeddings";
  loom::python::bind_errors(m);
  loom::python::bind_data(m);
  loom::python::bind_ops(m);
  loom::python::bind_loader(m);
  loom::python::bind_comm(m);
  loom::python::bind_embed(m);
}
