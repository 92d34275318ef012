// loom.comm: this process's rank in the job (`mpirun -np K python3 ...`; a plain `python3` is a
// world of one), barriers, sums over ranks, bucketed gradient all-reduce of a model's parameters
// on the `gradients` channel (as `loom train` averages them), and the per-channel byte and message
// counters every transfer goes through. abort() ends every rank with one message, as the CLI does
// when one rank fails on its own (loom/__init__.py calls it from sys.excepthook under mpirun).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/comm/watchdog.hpp"
#include "loom/core/log.hpp"
#include "loom/core/timer.hpp"
#include "loom/nn/gradient_sync.hpp"

namespace loom::python {

namespace {

std::unique_ptr<comm::MpiSession> g_session;
std::unique_ptr<comm::Communicator> g_world;
std::unique_ptr<comm::Watchdog> g_watchdog;  // in jobs of 2+ ranks, while comm::watchdog_timeout() > 0

double g_gradient_sync_seconds = 0;

// A watchdog over the world (watchdog.hpp): a rank whose process, host or link is gone ends the
// job with a line naming it after the comm timeout.
// A user's loop may leave an epoch, or stall, on one rank while the others wait in a collective:
// the watchdog also ends the job when a rank has waited in one for the timeout (watchdog.hpp).
void restart_watchdog() {
  g_watchdog.reset();
  if (g_world->size() > 1 && comm::watchdog_timeout() > 0)
    g_watchdog = std::make_unique<comm::Watchdog>(*g_world, comm::watchdog_timeout(), comm::watchdog_timeout());
}

// Finalises MPI at interpreter exit (registered with atexit when the module loads), once every
// loader's producer thread (which may be in a collective) has stopped and every rank has come to
// exit; a rank waits for the others at most the comm timeout, so that one left in a collective the
// others did not call (evaluate() on some ranks only) ends the job with a message, not a hang.
void finalize_world() {
  stop_every_loader();
  const double timeout = comm::watchdog_timeout();
  if (g_world && g_world->size() > 1 && timeout > 0 && !g_world->barrier_within(timeout))
    comm::abort_job(
        fmt::format("waited {:g} s at exit for the other ranks: some rank is still in a collective that "
                    "this rank did not call (e.g. evaluate() or a barrier on some ranks only), or still "
                    "working (loom.comm.set_timeout)",
                    timeout));
  g_watchdog.reset();
  g_world.reset();
  g_session.reset();
}

py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

// Every rank passes the same parameters (count, shapes, order), or every rank raises one error.
void check_same_parameters(const comm::Communicator& world, const std::vector<torch::Tensor>& parameters) {
  std::uint64_t shape_hash = parameters.size(), values = 0;
  for (const auto& p : parameters) {
    values += static_cast<std::uint64_t>(p.numel());
    for (const auto d : p.sizes()) shape_hash = shape_hash * 1000003u + static_cast<std::uint64_t>(d) + 1;
    shape_hash = shape_hash * 1000003u + 7;
  }
  const std::vector<std::int64_t> mine = {static_cast<std::int64_t>(parameters.size()),
                                          static_cast<std::int64_t>(values),
                                          static_cast<std::int64_t>(shape_hash >> 1)};
  std::vector<std::int64_t> lowest = mine, highest = mine;
  world.allreduce_min(lowest, comm::Channel::control);
  world.allreduce_max(highest, comm::Channel::control);
  world.agree(lowest == highest,
              fmt::format("GradientSync: the parameters differ between ranks (this rank has {} tensors of {} values "
                          "in all; the ranks have {} to {} tensors, {} to {} values): every rank must pass the same "
                          "model's parameters in the same order",
                          mine[0], mine[1], lowest[0], highest[0], lowest[1], highest[1]));
}

}  // namespace

double gradient_sync_seconds() { return g_gradient_sync_seconds; }

comm::Communicator& python_world() {
  if (!g_world) {
    g_session = std::make_unique<comm::MpiSession>();
    g_world = std::make_unique<comm::Communicator>(g_session->world());
    core::set_log_rank(g_world->rank(), g_world->size());
    restart_watchdog();
  }
  return *g_world;
}

void bind_comm(py::module_& m) {
  py::module_::import("atexit").attr("register")(py::cpp_function(&finalize_world));
  auto c = m.def_submodule("comm", "Ranks, collectives and the per-channel communication counters");
  c.def(
      "set_timeout",
      [](double seconds) {
        LOOM_CHECK_ARG(seconds >= 0, "seconds", "must be >= 0, got {:g}", seconds);
        comm::set_watchdog_timeout(seconds);
        if (g_world) restart_watchdog();
      },
      py::arg("seconds"),
      "`loom --comm-timeout`: how long a rank waits for a silent peer, in a collective some rank has not "
      "joined (a loop left or stalled on one rank), or at exit for the others, before it ends the job with a "
      "message naming the ranks and their steps (default 300; 0: forever). Collective once MPI has started.");
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
  c.def(
      "stats", [] { return to_python(python_world().stats().to_json()); },
      "this rank's bytes and messages sent and received per channel since start");
  c.def(
      "global_stats", [] { return to_python(python_world().global_stats(python_world().stats()).to_json()); },
      "collective: the counters summed and maxed over all ranks (and per rank on rank 0)");
  c.def(
      "abort", [](const std::string& message) { comm::abort_job(message); }, py::arg("message"),
      "prints the message and ends every rank of the job");

  py::class_<nn::GradientSync>(c, "GradientSync",
                               "Averages parameter gradients over all ranks in flat buckets (gradients channel)")
      .def(py::init([](std::vector<torch::Tensor> parameters) {
             check_same_parameters(python_world(), parameters);
             return std::make_unique<nn::GradientSync>(python_world(), std::move(parameters));
           }),
           py::arg("parameters"), py::keep_alive<1, 2>())
      .def(
          "all_reduce",
          [](nn::GradientSync& sync) {
            py::gil_scoped_release release;
            core::Timer timer;
            sync.all_reduce();
            g_gradient_sync_seconds += timer.seconds();
          },
          "after backward(): every rank's gradients become their mean over the ranks");
}

}  // namespace loom::python
