// loom.Block and loom.ops: Loom's message-flow graphs and its aggregation kernels (hand-written
// CSR forward and backward) as autograd functions callable from Python: gradients flow through
// them into PyTorch's autograd like any torch op.
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/core/error.hpp"
#include "loom/nn/aggregate.hpp"
#include "loom/nn/gat_aggregate.hpp"
#include "loom/nn/message_graph.hpp"
#include "loom/nn/relu_dropout.hpp"
#include "loom/nn/sparse_linear.hpp"

namespace loom::python {

namespace {

nn::Aggregation aggregation_of(const std::string& kind) {
  if (kind == "sum") return nn::Aggregation::kSum;
  if (kind == "mean") return nn::Aggregation::kMean;
  if (kind == "gcn") return nn::Aggregation::kGcn;
  throw Error::in_argument("kind", "unknown aggregation '" + kind + "' (want sum, mean or gcn)");
}

}  // namespace

void bind_ops(py::module_& m) {
  py::class_<nn::MessageGraph>(m, "Block",
                               "One layer's message-flow graph: num_dst destinations (the first num_dst sources) "
                               "aggregating from num_src sources along a CSR over the destinations")
      .def(py::init([](torch::Tensor indptr, torch::Tensor indices, std::int64_t num_src) {
             return nn::MessageGraph(indptr.contiguous(), indices.contiguous(), num_src);
           }),
           py::arg("indptr"), py::arg("indices"), py::arg("num_src"))
      .def_property_readonly("num_src", &nn::MessageGraph::num_src)
      .def_property_readonly("num_dst", &nn::MessageGraph::num_dst)
      .def_property_readonly("num_edges", &nn::MessageGraph::num_edges)
      .def_property_readonly("indptr", &nn::MessageGraph::indptr)
      .def_property_readonly("indices", &nn::MessageGraph::indices)
      .def(
          "edge_index",
          [](const nn::MessageGraph& g) {
            return torch::stack({g.indices().to(torch::kLong), g.edge_dst()});
          },
          "int64 [2, num_edges] (local source, local destination): PyG's layout for a bipartite layer "
          "(x = (x_src, x_src[:num_dst]))")
      .def(
          "to", [](const nn::MessageGraph& g, const std::string& device) { return g.to(torch::Device(device)); },
          py::arg("device"))
      .def("__repr__", [](const nn::MessageGraph& g) {
        return "<loom.Block " + std::to_string(g.num_src()) + " -> " + std::to_string(g.num_dst()) + ", " +
               std::to_string(g.num_edges()) + " edges>";
      });

  auto ops = m.def_submodule("ops", "Loom's aggregation kernels as autograd functions");
  ops.def(
      "aggregate",
      [](const nn::MessageGraph& g, const torch::Tensor& x, const std::string& kind) {
        return nn::aggregate(g, x, aggregation_of(kind));
      },
      py::arg("block"), py::arg("x"), py::arg("kind"),
      "x [num_src, F] -> [num_dst, F]: 'sum', 'mean' or 'gcn' (D^-1/2 (A + I) D^-1/2 with the block's "
      "GCN norms: the whole graph's degrees for blocks a Loader built)");
  ops.def("sparse_linear", &nn::sparse_linear, py::arg("x"), py::arg("weight"), py::arg("rows"),
          "x[:rows] @ weight.t() for a torch.sparse_csr x [n, in] (a sparse Batch.x) and a dense weight [out, in], "
          "never widening x: a threaded CPU kernel (cuSPARSE on a GPU); the gradient flows to the weight only");
  ops.def("relu_dropout", &nn::relu_dropout, py::arg("x"), py::arg("p"), py::arg("training"),
          "dropout(relu(x), p) fused in one pass, keeping a 1-byte mask for backward (torch's random stream)");
  ops.def("dropout", &nn::dropout, py::arg("x"), py::arg("p"), py::arg("training"),
          "torch.nn.functional.dropout with a 1-byte mask held for backward instead of a float one");
  ops.def("gat_aggregate", &nn::gat_aggregate, py::arg("block"), py::arg("x"), py::arg("a_src"), py::arg("a_dst"),
          py::arg("negative_slope") = 0.2, py::arg("self_loops") = true, py::arg("attention_dropout") = 0.0,
          py::arg("training") = false,
          "GAT's fused edge softmax and weighted sum: x [num_src, H, F], a_src [num_src, H], a_dst [num_dst, H] -> "
          "[num_dst, H, F]");
}

}  // namespace loom::python
