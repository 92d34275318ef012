// loom.comm: this process's rank in the job (`mpirun -np K python3 ...`; a plain `python3` is a
// world of one), barriers, sums over ranks, bucketed gradient all-reduce of a model's parameters
// on the `gradients` channel (as `loom train` averages them), and the per-channel byte and message
// counters every transfer goes through. abort() ends every rank with one message, as the CLI does
// when one rank fails on its own (loom/__init__.py calls it from sys.excepthook under mpirun).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/core/log.hpp"
#include "loom/train/gradient_sync.hpp"

namespace loom::python {

namespace {

std::unique_ptr<comm::MpiSession> g_session;
std::unique_ptr<comm::Communicator> g_world;

// Finalises MPI at interpreter exit (registered with atexit when the module loads).
void finalize_world() {
  g_world.reset();
  g_session.reset();
}

py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

}  // namespace

comm::Communicator& python_world() {
  if (!g_world) {
    g_session = std::make_unique<comm::MpiSession>();
    g_world = std::make_unique<comm::Communicator>(g_session->world());
    core::set_log_rank(g_world->rank(), g_world->size());
  }
  return *g_world;
}

void bind_comm(py::module_& m) {
  py::module_::import("atexit").attr("register")(py::cpp_function(&finalize_world));
  auto c = m.def_submodule("comm", "Ranks, collectives and the per-channel communication counters");
  c.def("rank", [] { return python_world().rank(); });
  c.def("size", [] { return python_world().size(); });
  c.def("barrier", [] {
    py::gil_scoped_release release;
    python_world().barrier();
  });
  c.def(
      "allreduce_sum",
      [](std::vector<double> values) {
        python_world().allreduce_sum(values, comm::Channel::control);
        return values;
      },
      py::arg("values"), "element-wise sum over all ranks (control channel)");
  c.def("stats", [] { return to_python(python_world().stats().to_json()); },
        "this rank's bytes and messages sent and received per channel since start");
  c.def(
      "global_stats", [] { return to_python(python_world().global_stats(python_world().stats()).to_json()); },
      "collective: the counters summed and maxed over all ranks (and per rank on rank 0)");
  c.def("abort", [](const std::string& message) { comm::abort_job(message); }, py::arg("message"),
        "prints the message and ends every rank of the job");

  py::class_<train::GradientSync>(c, "GradientSync",
                                  "Averages parameter gradients over all ranks in flat buckets (gradients channel)")
      .def(py::init([](std::vector<torch::Tensor> parameters) {
             return std::make_unique<train::GradientSync>(python_world(), std::move(parameters));
           }),
           py::arg("parameters"), py::keep_alive<1, 2>())
      .def(
          "all_reduce",
          [](train::GradientSync& sync) {
            py::gil_scoped_release release;
            sync.all_reduce();
          },
          "after backward(): every rank's gradients become their mean over the ranks");
}

}  // namespace loom::python
