// `loom` runs without LibTorch and hands `train` and `fullgraph` to `loom-torch` beside it
// (src/loom/cli/torch_commands.hpp): the same options, help and errors, and a clear error where
// loom-torch is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/test_support.hpp"

namespace loom {
namespace {

using test::contains;

TEST(CliTorchBinary, LoomDoesNotLoadLibTorch) {
  const auto libraries = test::run_command("ldd " + test::loom_binary());
  ASSERT_EQ(libraries.status, 0) << libraries.output;
  EXPECT_TRUE(contains(libraries.output, "libc.so")) << libraries.output;
  EXPECT_FALSE(contains(libraries.output, "libtorch")) << libraries.output;
  EXPECT_FALSE(contains(libraries.output, "libc10")) << libraries.output;
}

TEST(CliTorchBinary, TrainAndFullgraphAreListedAndParsedByLoomTorch) {
  const auto help = test::run_loom("--help");
  EXPECT_EQ(help.status, 0) << help.output;
  EXPECT_TRUE(contains(help.output, "train")) << help.output;
  EXPECT_TRUE(contains(help.output, "fullgraph")) << help.output;
  const auto train_help = test::run_loom("--log-level warn train --help");
  EXPECT_EQ(train_help.status, 0) << train_help.output;
  EXPECT_TRUE(contains(train_help.output, "--fanouts")) << train_help.output;
  const auto fullgraph_help = test::run_loom("fullgraph --help");
  EXPECT_EQ(fullgraph_help.status, 0) << fullgraph_help.output;
  EXPECT_TRUE(contains(fullgraph_help.output, "--mode")) << fullgraph_help.output;
  const auto bad = test::run_loom("train --no-such-option 1");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_TRUE(contains(bad.output, "--no-such-option")) << bad.output;
}

TEST(CliTorchBinary, MissingLoomTorchIsAClearError) {
  test::ScratchDir dir;
  std::filesystem::copy_file(test::loom_binary(), dir / "loom");
  const auto r = test::run_command(dir / "loom" + " train " + (dir / "store"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "cannot start " + (dir / "loom-torch"))) << r.output;
  const auto info = test::run_command(dir / "loom" + " info " + (dir / "store"));
  EXPECT_EQ(info.status, 1) << info.output;
  EXPECT_TRUE(contains(info.output, "not a Loom store")) << info.output;
}

}  // namespace
}  // namespace loom
