// Folders in a process that loads the LibTorch a GPU build uses. A pip PyTorch's LibTorch exports
// a copy of libstdc++'s std::filesystem; processes that load it crashed removing a non-empty folder
// with std::filesystem::remove_all (scripts/device-check, 2026-11-27), so Loom removes folders with
// core::remove_tree. Here a tree is listed the way checkpoint folders are (directory_iterator) and
// removed the way OutputDir, TempDir and the tests' scratch folders are, after LibTorch has run.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "loom/core/fs.hpp"
#include "support/test_support.hpp"

namespace loom::core {
namespace {

namespace fs = std::filesystem;

TEST(LibTorchProcess, FoldersAreListedAndRemovedWithWhatTheyHold) {
  ASSERT_EQ(torch::ones({2}).sum().item<float>(), 2.0f);  // LibTorch loaded and running
  test::ScratchDir dir;
  const fs::path root = fs::path(dir.path()) / "tree";
  fs::create_directories(root / "a" / "b");
  for (const char* name : {"x", "a/y", "a/b/z"}) std::ofstream(root / name) << "data";
  fs::create_symlink(dir.path(), root / "a" / "link-outside");  // removed, not followed

  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::recursive_directory_iterator(root)) ++entries;
  EXPECT_EQ(entries, 6);

  EXPECT_TRUE(remove_tree(root.string()));
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists(dir.path()));
  EXPECT_TRUE(remove_tree(root.string())) << "an absent path is nothing to remove";
}

}  // namespace
}  // namespace loom::core
