// Shared by the files of the loom._loom extension: each bind_<part>() adds one part of the API
// to the module (module.cpp calls them in order), and the helpers that hand C++ data to Python.
// A store's arrays become tensors that VIEW its memory-mapped files (nothing is copied); each
// such tensor holds a reference to what owns the memory, so it stays valid after the Python
// object it came from is gone. The maps are copy-on-write: writing into such a tensor changes a
// private copy of the page, never the file.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <pybind11/stl/filesystem.h>
#include <torch/extension.h>

#include "loom/comm/communicator.hpp"
#include "loom/core/error.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/store.hpp"

namespace loom::python {

namespace py = pybind11;

// A file or directory argument: str or any os.PathLike (pathlib.Path) from Python.
using PathArg = std::filesystem::path;

void bind_errors(py::module_& m);
void bind_data(py::module_& m);
void bind_ops(py::module_& m);
void bind_loader(py::module_& m);
void bind_comm(py::module_& m);
void bind_embed(py::module_& m);
void bind_commands(py::module_& m);

// Raises loom.Error (loom.AgreedError for an agreed failure) with `e`'s message as the CLI prints
// it, options named --like-this (loom.run: the caller wrote CLI arguments).
[[noreturn]] void raise_with_cli_message(const Error& e);

// This process's world communicator: MPI starts on first use (a plain `python3` is a world of
// one) and is finalised at interpreter exit.
comm::Communicator& python_world();

// Ends every live Loader's epoch and joins its producer thread (before MPI is finalised).
void stop_every_loader();

// Seconds spent in loom.comm.GradientSync.all_reduce since the module loaded (a Loader counts the
// share within the caller's time with a batch as all-reduce, not compute).
double gradient_sync_seconds();

// A tensor viewing `data` with `shape`, keeping `owner` alive while any view of its storage lives.
template <class T>
torch::Tensor view_tensor(std::span<const T> data, std::vector<std::int64_t> shape, std::shared_ptr<const void> owner) {
  auto* ptr = const_cast<T*>(data.data());
  return torch::from_blob(
      ptr, shape, [owner](void*) {}, torch::TensorOptions().dtype(torch::CppTypeToScalarType<T>()));
}

// The same for an .npy array of any dtype the store uses (float32, float16, int32, int64, uint8).
torch::Tensor view_npy(const format::NpyArray& array, std::shared_ptr<const void> owner);

// A store's original node ids: an int64 tensor, or a list of str where the graph names its nodes.
py::object original_ids(const graph::GraphStore& store);

// A tensor copying `values`.
template <class T>
torch::Tensor copy_tensor(std::span<const T> values) {
  return view_tensor(values, {static_cast<std::int64_t>(values.size())}, nullptr).clone();
}

}  // namespace loom::python
