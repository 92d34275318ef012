// Options are checked before any data is read (issue 51): a bad model option of `loom fullgraph`
// or a bad --eval-every of either trainer is named, whatever the store, and --eval-every means the
// same in both trainers. --host-reads (issue 47) changes where own rows are read, not the training.
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace loom {
namespace {

using test::contains;

TEST(CliOptionChecks, FullGraphModelOptionsAreCheckedBeforeTheStoreIsOpened) {
  test::ScratchDir s;  // no store at all: the option is named first
  for (const std::string& bad :
       std::vector<std::string>{"--hidden 0", "--layers 0", "--dropout 1.5", "--gcnii-alpha 2"}) {
    const auto r = test::run_loom("fullgraph " + s / "missing" + " " + bad + " --epochs 1");
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_TRUE(contains(r.output, bad.substr(0, bad.find(' ')))) << bad << ": " << r.output;
    EXPECT_FALSE(contains(r.output, "meta.json")) << bad << ": the store was opened first: " << r.output;
  }
}

TEST(CliOptionChecks, EvalEveryHasOneMeaningInBothTrainers) {
  test::ScratchDir s;
  for (const std::string& command : std::vector<std::string>{"train", "fullgraph"}) {
    const auto r = test::run_loom(command + " " + s / "missing" + " --eval-every -1");
    EXPECT_NE(r.status, 0) << command;
    EXPECT_TRUE(contains(r.output, "--eval-every")) << command << ": " << r.output;
    EXPECT_TRUE(contains(r.output, "0 = never")) << command << ": " << r.output;
  }
}

// The losses of every epoch record of a --metrics file.
std::vector<double> epoch_losses(const std::string& metrics) {
  std::vector<double> losses;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record.contains("epoch_seconds")) losses.push_back(record["loss"].get<double>());
  }
  return losses;
}

TEST(CliOptionChecks, HostReadsMappedTrainsAsStaged) {
  test::ScratchDir s;
  ASSERT_EQ(
      test::run_loom("generate sbm --nodes 1500 --classes 4 --avg-degree 8 --feat-dim 8 --seed 3 -o " + s / "g").status,
      0);
  const std::string train =
      "train " + s / "g" + " --layers 2 --fanouts 5,5 --hidden 16 --epochs 2 --threads 1 " + "--quiet --metrics ";
  const auto staged = test::run_loom(train + s / "staged.jsonl" + " --device-rows 0.25 --host-reads staged");
  ASSERT_EQ(staged.status, 0) << staged.output;
  const auto mapped = test::run_loom(train + s / "mapped.jsonl" + " --device-rows 0.25 --host-reads mapped");
  ASSERT_EQ(mapped.status, 0) << mapped.output;
  const auto losses = epoch_losses(s / "staged.jsonl");
  ASSERT_EQ(losses.size(), 2u);
  EXPECT_EQ(epoch_losses(s / "mapped.jsonl"), losses);
  const auto bad = test::run_loom(train + s / "bad.jsonl" + " --host-reads uva");
  EXPECT_NE(bad.status, 0);
  EXPECT_TRUE(contains(bad.output, "--host-reads")) << bad.output;
  const auto superbatch = test::run_loom(train + s / "bad.jsonl" + " --host-reads mapped --superbatch 2");
  EXPECT_NE(superbatch.status, 0);
  EXPECT_TRUE(contains(superbatch.output, "--host-reads mapped")) << superbatch.output;
}

}  // namespace
}  // namespace loom
