// loom.GraphStore and loom.PartitionedStore: a store's graph, features, labels, splits and
// original ids as tensors viewing its memory-mapped files; the parts and partition book of a
// partitioned store.
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/core/error.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/store_verification.hpp"

namespace loom::python {

torch::Tensor view_npy(const format::NpyArray& array, std::shared_ptr<const void> owner) {
  const std::vector<std::int64_t> shape(array.shape().begin(), array.shape().end());
  switch (array.dtype()) {
    case format::DType::kFloat32: return view_tensor(array.span<float>(), shape, owner);
    case format::DType::kInt64: return view_tensor(array.span<std::int64_t>(), shape, owner);
    case format::DType::kInt32: return view_tensor(array.span<std::int32_t>(), shape, owner);
    case format::DType::kUInt8: return view_tensor(array.span<std::uint8_t>(), shape, owner);
    case format::DType::kFloat16:
    case format::DType::kBFloat16: {
      auto* ptr = const_cast<void*>(array.data());
      const auto type = array.dtype() == format::DType::kFloat16 ? torch::kHalf : torch::kBFloat16;
      return torch::from_blob(
          ptr, shape, [owner](void*) {}, torch::TensorOptions().dtype(type));
    }
    default:
      throw Error::in_file(array.path(), 0, "dtype " + format::dtype_name(array.dtype()) + " has no tensor view");
  }
}

namespace {

using Store = std::shared_ptr<graph::GraphStore>;

// A sparse store's rows as torch.sparse_csr [num_nodes, feat_dim]: row offsets and values viewed
// in place where their dtypes allow (int64 offsets; columns widened to int64 as torch wants them
// beside int64 offsets; every value 1 where the store keeps none).
torch::Tensor sparse_features(const Store& s) {
  const graph::SparseFeatureArrays& a = s->sparse_feat();
  const torch::Tensor crow = view_npy(a.indptr, s);
  const torch::Tensor col = view_npy(a.indices, s).to(torch::kInt64);
  const torch::Tensor values =
      a.values.data() != nullptr ? view_npy(a.values, s) : torch::ones({col.size(0)}, torch::kFloat32);
  return torch::sparse_csr_tensor(crow, col, values, {s->num_nodes(), s->meta().feat_dim},
                                  torch::TensorOptions().dtype(values.dtype()));
}

// Verified as the CLI verifies what it reads (meta.json's seal, every file's digest), unless
// verify=False.
Store open_store(const PathArg& path, bool verify) {
  if (verify) partition::verify_store(partition::mapped_folders(path.string()));
  return std::make_shared<graph::GraphStore>(graph::GraphStore::open(path.string(), verify));
}

torch::Tensor indices_of(const Store& s) {
  return s->csr().visit(
      [&](auto view) { return view_tensor(view.indices, {static_cast<std::int64_t>(view.indices.size())}, s); });
}

// [2, E] (source, destination) pairs: row i of the CSR lists the sources whose messages i aggregates.
torch::Tensor edge_index_of(const Store& s) {
  const auto indptr = view_tensor(s->csr().indptr(), {s->num_nodes() + 1}, s);
  const auto degrees = indptr.slice(0, 1) - indptr.slice(0, 0, s->num_nodes());
  const auto rows = torch::repeat_interleave(torch::arange(s->num_nodes(), torch::kLong), degrees);
  return torch::stack({indices_of(s).to(torch::kLong), rows});
}

py::object original_ids_of(const Store& s) { return original_ids(*s); }

}  // namespace

py::object original_ids(const graph::GraphStore& store) {
  if (store.meta().id_map == graph::IdMapKind::kNames) return py::cast(store.original_names());
  const auto ids = store.original_ids();
  return py::cast(copy_tensor(std::span<const std::int64_t>(ids)));
}

void bind_data(py::module_& m) {
  py::class_<graph::GraphStore, Store>(m, "GraphStore",
                                       "A Loom graph store (what `loom import` / `generate` write), memory-mapped")
      .def(py::init(&open_store), py::arg("path"), py::kw_only(), py::arg("verify") = true,
           "verify: check every file against the digests the store records before any is read (as every "
           "`loom` command does; reads the whole store once), and meta.json against its seal")
      .def_property_readonly("path", &graph::GraphStore::dir)
      .def_property_readonly("num_nodes", &graph::GraphStore::num_nodes)
      .def_property_readonly("num_edges", [](const Store& s) { return s->meta().num_edges; })
      .def_property_readonly("directed", [](const Store& s) { return s->meta().directed; })
      .def_property_readonly("feat_dim", [](const Store& s) { return s->meta().feat_dim; })
      .def_property_readonly("num_classes", [](const Store& s) { return s->meta().num_classes; })
      .def_property_readonly("multi_label", [](const Store& s) { return s->meta().multi_label; })
      .def_property_readonly(
          "indptr", [](const Store& s) { return view_tensor(s->csr().indptr(), {s->num_nodes() + 1}, s); },
          "int64 [num_nodes + 1]: node i's neighbours are indices[indptr[i]:indptr[i+1]]")
      .def_property_readonly("indices", &indices_of, "int32 or int64 [num_edges]: neighbour ids, CSR order")
      .def("edge_index", &edge_index_of, "int64 [2, num_edges] (source, destination), PyG's layout (a copy)")
      .def_property_readonly(
          "edge_weight",
          [](const Store& s) -> py::object {
            if (!s->meta().weighted) return py::none();
            return py::cast(view_npy(s->edge_weight(), s));
          },
          "float32 [num_edges] in CSR order (edge_index()'s), or None for an unweighted graph")
      .def_property_readonly(
          "features",
          [](const Store& s) -> py::object {
            if (!s->has_feat()) return py::none();
            if (s->meta().feat_layout == graph::FeatureLayout::kSparse) return py::cast(sparse_features(s));
            return py::cast(view_npy(s->feat(), s));
          },
          "float32, float16 or bfloat16 [num_nodes, feat_dim], or None: a view of the mapped file, to read (a store "
          "imported with the sparse feature layout gives a torch.sparse_csr tensor). Writes land in a private copy "
          "of the page that no Loader sees; to train on other features, write a store (loom.from_pyg, loom import "
          "npy)")
      .def_property_readonly(
          "labels",
          [](const Store& s) -> py::object {
            if (!s->has_label()) return py::none();
            return py::cast(view_npy(s->label(), s));
          },
          "int64 [num_nodes] (-1 = unlabelled) or uint8 [num_nodes, num_classes] (multi-label), or None")
      .def_property_readonly("splits",
                             [](const Store& s) {
                               std::vector<std::string> names;
                               for (const auto& [name, size] : s->meta().splits) names.push_back(name);
                               return names;
                             })
      .def(
          "split",
          [](const Store& s, const std::string& name) {
            const auto ids = s->split(name);
            return view_tensor(ids, {static_cast<std::int64_t>(ids.size())}, s);
          },
          py::arg("name"), "int64 row ids of a split ('train', 'valid', 'test')")
      .def_property_readonly("original_ids", &original_ids_of,
                             "the user's id of every row: int64 tensor, or a list of str for string ids")
      .def("__repr__", [](const Store& s) {
        return "<loom.GraphStore " + s->dir() + ": " + std::to_string(s->num_nodes()) + " nodes, " +
               std::to_string(s->meta().num_edges) + " edges, " + std::to_string(s->meta().feat_dim) + " features, " +
               std::to_string(s->meta().num_classes) + " classes>";
      });

  using Parts = std::shared_ptr<partition::PartitionedStore>;
  py::class_<partition::PartitionedStore, Parts>(m, "PartitionedStore",
                                                 "A partitioned store (what `loom partition` writes)")
      .def(py::init([](const PathArg& path, bool verify) {
             if (verify) partition::verify_store(partition::mapped_folders(path.string()));
             return std::make_shared<partition::PartitionedStore>(
                 partition::PartitionedStore::open(path.string(), verify));
           }),
           py::arg("path"), py::kw_only(), py::arg("verify") = true,
           "verify: check every file of the store and its parts against their digests first, and meta.json "
           "against its seal")
      .def_property_readonly("path", &partition::PartitionedStore::dir)
      .def_property_readonly("num_parts", &partition::PartitionedStore::num_parts)
      .def_property_readonly("num_nodes", [](const Parts& p) { return p->meta().graph.num_nodes; })
      .def_property_readonly(
          "node_offsets", [](const Parts& p) { return copy_tensor(p->book().offsets()); },
          "int64 [num_parts + 1]: part k owns global ids node_offsets[k] .. node_offsets[k+1]-1")
      .def_property_readonly(
          "topology", [](const Parts& p) { return std::make_shared<graph::GraphStore>(p->topology()); },
          "the whole graph in the partition's global ids (structure only)")
      .def_property_readonly(
          "new_to_source",
          [](const Parts& p) { return view_tensor(p->new_to_source(), {p->meta().graph.num_nodes}, p); },
          "int64: global id -> row of the source store")
      .def(
          "part",
          [](const Parts& p, int k) {
            if (k < 0 || k >= p->num_parts())
              throw Error::in_argument(
                  "part", "part " + std::to_string(k) + " outside 0.." + std::to_string(p->num_parts() - 1));
            return std::make_shared<graph::GraphStore>(p->part(k).store());
          },
          py::arg("k"), "part k's own store: its rows, their features, labels and local splits");
}

}  // namespace loom::python
