// Outputs that appear whole or not at all (core/fs.hpp) and the metrics log (core/metrics.hpp):
// an output that is or holds its input is refused; registered temporaries go when a signal ends a
// command, a log's is renamed into place; temporaries of dead processes of this host are removed
// by the next writer, those of other hosts stay; a resumed metrics log continues only its own run.
#include <unistd.h>

#include <filesystem>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/metrics.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::core {
namespace {

std::string host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

TEST(OutputApart, AnOutputThatIsOrHoldsItsInputIsRefusedOneInsideIsNot) {
  test::ScratchDir dir;
  fs::create_directories(dir / "data/raw");
  EXPECT_THROW(check_output_apart(dir / "data", dir / "data", "-o"), Error);
  EXPECT_THROW(check_output_apart(dir / "data/", dir / "data/raw/../raw", "-o"), Error);
  EXPECT_THROW(check_output_apart(dir.path(), dir / "data/raw", "-o"), Error);
  EXPECT_NO_THROW(check_output_apart(dir / "data/store", dir / "data", "-o"));
  EXPECT_NO_THROW(check_output_apart(dir / "other", dir / "data", "-o"));
  try {
    check_output_apart(dir / "data", dir / "data/raw", "--output");
    FAIL() << "not refused";
  } catch (const Error& e) {
    EXPECT_TRUE(test::contains(e.what(), "argument --output")) << e.what();
    EXPECT_TRUE(test::contains(e.what(), "holds the input")) << e.what();
  }
}

TEST(Temporaries, ASignalRemovesRegisteredOnesAndRenamesALogIntoPlace) {
  test::ScratchDir dir;
  fs::create_directories(dir / "out.tmp/part-0");
  test::write_file(dir / "out.tmp/part-0/feat.npy", "rows");
  test::write_file(dir / "m.jsonl.tmp", "{\"epoch\": 1}\n");
  const int folder = register_temporary(dir / "out.tmp");
  const int log = register_temporary(dir / "m.jsonl.tmp", dir / "m.jsonl");
  ASSERT_GE(folder, 0);
  ASSERT_GE(log, 0);
  EXPECT_EQ(remove_registered_temporaries(), 1);  // the folder; the log is renamed, not removed
  EXPECT_FALSE(fs::exists(dir / "out.tmp"));
  EXPECT_EQ(test::read_bytes(dir / "m.jsonl"), "{\"epoch\": 1}\n");
  EXPECT_EQ(remove_registered_temporaries(), 0);  // each once
}

TEST(Temporaries, ThoseOfDeadProcessesOfThisHostGoThoseOfOthersStay) {
  test::ScratchDir dir;
  const std::string dead = dir / ("s.tmp-" + host() + "-999999999-0");  // beyond pid_max
  const std::string alive = dir / ("s.tmp-" + host() + "-" + std::to_string(::getpid()) + "-7");
  const std::string elsewhere = dir / "s.tmp-another-host-999999999-0";
  const std::string unrelated = dir / "sx.tmp-" + host() + "-999999999-0";
  for (const auto& path : {dead, alive, elsewhere, unrelated}) fs::create_directories(path);
  remove_stale_temporaries(dir / "s");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(elsewhere));
  EXPECT_TRUE(fs::exists(unrelated));
}

TEST(MetricsLog, AResumedLogGoesOnFromItsCheckpointAndRefusesAnotherRuns) {
  test::ScratchDir dir;
  const std::string path = dir / "m.jsonl";
  LogPrefix at_checkpoint;
  {
    MetricsLog log(path);
    log.write({{"epoch", 1}});
    at_checkpoint = log.position();
    log.write({{"epoch", 2}});  // after the checkpoint: the resumed run writes it again
  }
  {
    MetricsLog log(path, at_checkpoint, /*overwrite=*/false);
    EXPECT_EQ(test::read_bytes(path), "{\"epoch\":1}\n{\"epoch\":2}\n");  // untouched until it writes
    log.write({{"epoch", 2}, {"resumed", true}});
  }
  EXPECT_EQ(test::read_bytes(path), "{\"epoch\":1}\n{\"epoch\":2,\"resumed\":true}\n");
  test::write_file(dir / "other.jsonl", "{\"epoch\":9}\n");
  EXPECT_THROW(MetricsLog(dir / "other.jsonl", at_checkpoint, /*overwrite=*/false), Error);
  EXPECT_THROW(MetricsLog(dir / "other.jsonl", std::nullopt, /*overwrite=*/false), Error);
  EXPECT_EQ(test::read_bytes(dir / "other.jsonl"), "{\"epoch\":9}\n");
  {
    MetricsLog log(dir / "other.jsonl", at_checkpoint, /*overwrite=*/true);  // replaced at the end
    log.write({{"epoch", 2}});
    EXPECT_EQ(test::read_bytes(dir / "other.jsonl"), "{\"epoch\":9}\n");
  }
  EXPECT_EQ(test::read_bytes(dir / "other.jsonl"), "{\"epoch\":2}\n");
}

TEST(MetricsLog, DiscardLeavesThePathAsItWas) {
  test::ScratchDir dir;
  {
    MetricsLog fresh(dir / "new.jsonl");
    fresh.write({{"epoch", 1}});
    fresh.discard();
  }
  EXPECT_FALSE(fs::exists(dir / "new.jsonl"));
  test::write_file(dir / "old.jsonl", "old\n");
  {
    MetricsLog replacing(dir / "old.jsonl");
    replacing.write({{"epoch", 1}});
    replacing.discard();
  }
  EXPECT_EQ(test::read_bytes(dir / "old.jsonl"), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(OutputDir, RemovesEverythingWhenNotCommitted) {
  test::ScratchDir dir;
  {
    OutputDir out(dir / "store", false);
    write_text_file(out.file("a.txt"), "x");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(OutputDir, RefusesExistingTargetWithoutOverwrite) {
  test::ScratchDir dir;
  std::filesystem::create_directory(dir / "store");
  EXPECT_THROW(OutputDir(dir / "store", false), Error);
  OutputDir ok(dir / "store", true);
  ok.commit();
}

TEST(OutputDir, UnwritableParentNamesTheArgument) {
  test::ScratchDir dir;
  write_text_file(dir / "file", "x");
  try {
    OutputDir out(dir / "file/sub", false, "-o");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "-o");
  }
}

}  // namespace
}  // namespace loom::core
