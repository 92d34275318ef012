#include "loom/nn/rank_runtime.hpp"

#include "loom/nn/runtime.hpp"

namespace loom::nn {

RankRuntime open_rank(const RankOptions& options, comm::Communicator& world, const std::function<void()>& check) {
  world.agree_on(check);
  RankRuntime rank;
  rank.threads = cpu_threads_per_rank(options.threads, world.ranks_on_this_node());
  configure_cpu_runtime(rank.threads);
  world.set_link_model(options.link);
  world.agree_on([&] { rank.device = resolve_device(options.device, world.rank()); });
  return rank;
}

}  // namespace loom::nn
