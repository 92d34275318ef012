// Kept counts: what is kept reads back equal under its key, and nothing reads back under another
// key, from a damaged file, or from a folder that cannot be written (a plan then counts afresh).
// The default folder is the store's own where it can be written, else the user's cache.
#include <gtest/gtest.h>

#include <filesystem>

#include "loom/core/fs.hpp"
#include "loom/plan/counts_cache.hpp"

namespace loom::plan {
namespace {

CountedSplit two_parts() {
  CountedSplit c;
  c.split.book = partition::PartitionBook({0, 5, 9});
  c.split.halo_sizes = {3, 4};
  c.split.scale = 102.4;
  c.split.origin = "a stand-in; metis 2-way";
  c.counts.steps = 2;
  for (int k = 0; k < 2; ++k) {
    auto& steps = c.counts.parts.emplace_back();
    for (int s = 0; s < 2; ++s)
      steps.push_back({{{10 + s, 40 + k, 90}, {3, 10 + s, 25}}, 40 + k, 7 + s, {{0, 7 + s}, {0, 2 + k}}});
  }
  return c;
}

void expect_equal(const CountedSplit& a, const CountedSplit& b) {
  EXPECT_EQ(a.split.book, b.split.book);
  EXPECT_EQ(a.split.halo_sizes, b.split.halo_sizes);
  EXPECT_DOUBLE_EQ(a.split.scale, b.split.scale);
  EXPECT_EQ(a.split.origin, b.split.origin);
  ASSERT_EQ(a.counts.steps, b.counts.steps);
  ASSERT_EQ(a.counts.parts.size(), b.counts.parts.size());
  for (std::size_t k = 0; k < a.counts.parts.size(); ++k)
    for (std::int64_t s = 0; s < a.counts.steps; ++s) {
      const StepCount &x = a.counts.parts[k][s], &y = b.counts.parts[k][s];
      EXPECT_EQ(x.input_rows, y.input_rows);
      EXPECT_EQ(x.remote_rows, y.remote_rows);
      EXPECT_EQ(x.fetched, y.fetched);
      ASSERT_EQ(x.layers.size(), y.layers.size());
      for (std::size_t l = 0; l < x.layers.size(); ++l) {
        EXPECT_EQ(x.layers[l].dst, y.layers[l].dst);
        EXPECT_EQ(x.layers[l].src, y.layers[l].src);
        EXPECT_EQ(x.layers[l].edges, y.layers[l].edges);
      }
    }
}

TEST(CountsCache, KeptCountsReadBackEqualUnderTheirKeyOnly) {
  core::TempDir dir;
  const std::string folder = dir.path() + "/plan-counts";
  EXPECT_FALSE(read_counts(folder, "k1").has_value());
  keep_counts(folder, "k1", two_parts());
  const auto back = read_counts(folder, "k1");
  ASSERT_TRUE(back.has_value());
  expect_equal(*back, two_parts());
  EXPECT_FALSE(read_counts(folder, "k2").has_value());
}

TEST(CountsCache, ADamagedEntryIsCountedAfresh) {
  core::TempDir dir;
  keep_counts(dir.path(), "k", two_parts());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string bytes = core::read_text_file(entry.path());
    core::write_text_file(entry.path(), bytes.substr(0, bytes.size() / 2));
  }
  EXPECT_FALSE(read_counts(dir.path(), "k").has_value());
}

TEST(CountsCache, AFolderThatCannotBeWrittenKeepsNothingAndDoesNotThrow) {
  core::TempDir dir;
  const std::string file = dir.path() + "/a-file";
  core::write_text_file(file, "not a folder");
  EXPECT_NO_THROW(keep_counts(file + "/plan-counts", "k", two_parts()));
  EXPECT_FALSE(read_counts(file + "/plan-counts", "k").has_value());
}

TEST(CountsCache, TheDefaultFolderIsTheStoresOwnOrTheUsersCache) {
  core::TempDir store;
  EXPECT_EQ(default_counts_dir(store.path()), store.path() + "/plan-counts");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(default_counts_dir(""), "/tmp/xdg/loom/plan-counts");
  // A store the user cannot write to (here: not there) keeps its counts in the user's cache.
  EXPECT_EQ(default_counts_dir(store.path() + "/absent"), "/tmp/xdg/loom/plan-counts");
  ::unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace loom::plan
