// Options are checked before any data is read (issue 51): a bad model option of `loom fullgraph`
// or a bad --eval-every of either trainer is named, whatever the store, and --eval-every means the
// same in both trainers.
#include <string>
#include <vector>

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

}  // namespace
}  // namespace loom
