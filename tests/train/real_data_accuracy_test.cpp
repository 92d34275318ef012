// Accuracy on real data (skipped without the shared data): Cora with the planetoid split,
// 2-layer GraphSAGE with fanouts 25,10, mean test accuracy over 5 seeds >= 0.78 (PyG 2.4 with
// pyg-lib: 0.786). Facebook's full-size figure lives in bench/bench_train.sh.
#include "loom/graph/io/ogb.hpp"
#include "loom/train/minibatch/minibatch_trainer.hpp"
#include "support/single_rank_world.hpp"
#include "support/test_support.hpp"

namespace loom::train {
namespace {

TEST(RealDataAccuracy, CoraSageMeanOverFiveSeeds) {
  LOOM_REQUIRE_DATA(cora, "graphs/cora");
  auto world = testing::single_rank_world();
  test::ScratchDir dir;
  graph::io::OgbImportOptions import;
  import.dir = cora;
  graph::write_graph_store(graph::io::import_ogb(import), dir / "cora", {});
  MinibatchOptions o;
  o.store = dir / "cora";
  o.model.num_layers = 2;
  o.model.hidden = 64;
  o.model.dropout = 0.5;
  o.fanouts = {25, 10};
  o.batch_size = 140;
  o.run.epochs = 40;
  o.run.lr = 0.01;
  o.run.weight_decay = 5e-4;
  o.run.eval.every = 0;
  o.run.rank.threads = 2;
  o.output.quiet = true;
  double sum = 0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    o.run.seed = seed;
    const double acc = run_minibatch(o, world).final_test;
    std::printf("seed %llu: test accuracy %.4f\n", static_cast<unsigned long long>(seed), acc);
    sum += acc;
  }
  EXPECT_GE(sum / 5, 0.78);
}

}  // namespace
}  // namespace loom::train
