// A cap on OpenMP threads below --threads (OMP_THREAD_LIMIT, as batch schedulers set it):
// training runs on the threads the cap allows and ends. OpenBLAS's threaded GEMM, told of more
// threads than OpenMP then starts, used to wait for the missing ones forever; `timeout` turns
// such a hang into a failure here. SGNS, whose threads each own a slice of the corpus, silently
// skipped the slices of the threads OpenMP did not start; it now trains on every word.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace loom {
namespace {

TEST(CliThreadLimit, TrainingUnderAnOpenMpThreadLimitFinishes) {
  test::ScratchDir dir;
  auto r = test::run_loom("generate sbm -o " + (dir / "g") +
                          " --nodes 1200 --classes 4 --avg-degree 6 --feat-dim 16 --seed 1");
  ASSERT_EQ(r.status, 0) << r.output;
  r = test::run_command("OMP_THREAD_LIMIT=1 timeout 120 " + test::loom_binary() + " train " + (dir / "g") +
                        " --threads 2 --epochs 1 --hidden 32 --eval-every 0 --quiet");
  ASSERT_NE(r.status, 124) << "training under OMP_THREAD_LIMIT=1 hung:\n" << r.output;
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(CliThreadLimit, EmbeddingUnderAnOpenMpThreadLimitTrainsOnEveryWord) {
  test::ScratchDir dir;
  std::string corpus;
  for (int line = 0; line < 200; ++line) corpus += "the quick brown fox jumps over the lazy dog\n";
  test::write_file(dir / "corpus.txt", corpus);
  const std::string embed = " embed text " + (dir / "corpus.txt") + " -o " + (dir / "vec.txt") +
                            " --threads 2 --epochs 2 --sample 0 --dim 8 --quiet --json";
  const auto r = test::run_command("OMP_THREAD_LIMIT=1 timeout 120 " + test::loom_binary() + embed);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"words\":3600,"), std::string::npos) << r.output;  // 2 epochs x 1800 tokens
}

}  // namespace
}  // namespace loom
