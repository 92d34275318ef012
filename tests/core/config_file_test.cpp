// The TOML subset of --config files: values of every kind with their lines, sections, comments,
// and an error naming the file and line for everything outside the subset.
#include <gtest/gtest.h>

#include "loom/core/config_file.hpp"
#include "loom/core/error.hpp"
#include "support/test_support.hpp"

namespace loom::core {
namespace {

std::vector<ConfigEntry> parse(const std::string& text) {
  test::ScratchDir s;
  test::write_file(s / "c.toml", text);
  return read_config_file(s / "c.toml");
}

// The message of the Error that parsing `text` raises ("" when it parses).
std::string error_of(const std::string& text, const std::string& path_holder = "c.toml") {
  test::ScratchDir s;
  test::write_file(s / path_holder, text);
  try {
    read_config_file(s / path_holder);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigFile, ReadsEveryValueKindWithItsLine) {
  const auto entries = parse(
      "# GCN (Kipf & Welling 2017)\n"
      "model = \"gcn\"   # comment after a value\n"
      "\n"
      "layers = 2\n"
      "lr = 0.01\n"
      "weight-decay = 5e-4\n"
      "batch_size = 1_000\n"
      "quiet = true\n"
      "fanouts = [-1, -1]\n"
      "name = 'C:\\path # not a comment'\n"
      "escaped = \"a\\\"b\\\\c\"\n"
      "[train]\n"
      "epochs = 200\n");
  ASSERT_EQ(entries.size(), 10u);
  EXPECT_EQ(entries[0].key, "model");
  EXPECT_EQ(entries[0].kind, ConfigValueKind::kString);
  EXPECT_EQ(entries[0].text, "gcn");
  EXPECT_EQ(entries[0].line, 2);
  EXPECT_EQ(entries[1].kind, ConfigValueKind::kInteger);
  EXPECT_EQ(entries[1].line, 4);
  EXPECT_EQ(entries[2].kind, ConfigValueKind::kFloat);
  EXPECT_EQ(entries[3].text, "5e-4");
  EXPECT_EQ(entries[3].kind, ConfigValueKind::kFloat);
  EXPECT_EQ(entries[4].text, "1000");
  EXPECT_EQ(entries[5].kind, ConfigValueKind::kBool);
  EXPECT_EQ(entries[6].kind, ConfigValueKind::kArray);
  EXPECT_EQ(entries[6].text, "-1,-1");
  EXPECT_EQ(entries[7].text, "C:\\path # not a comment");
  EXPECT_EQ(entries[8].text, "a\"b\\c");
  EXPECT_EQ(entries[9].section, "train");
  EXPECT_EQ(entries[9].line, 13);
  EXPECT_EQ(entries[0].section, "");
}

TEST(ConfigFile, OutsideTheSubsetIsAnErrorNamingFileAndLine) {
  EXPECT_NE(error_of("a = 1\nb = \"open\n").find("c.toml:2: unterminated string"), std::string::npos);
  EXPECT_NE(error_of("model = gcn\n").find("c.toml:1: 'gcn' is not a value (strings need quotes"), std::string::npos);
  EXPECT_NE(error_of("a = 1\na = 2\n").find("c.toml:2: key 'a' is set again (first on line 1)"), std::string::npos);
  EXPECT_NE(error_of("a.b = 1\n").find("c.toml:1: dotted key"), std::string::npos);
  EXPECT_NE(error_of("a = [1, 2\n").find("c.toml:1:"), std::string::npos);
  EXPECT_NE(error_of("a = {x = 1}\n").find("inline tables"), std::string::npos);
  EXPECT_NE(error_of("a = 1 2\n").find("c.toml:1: unexpected text after the value"), std::string::npos);
  EXPECT_NE(error_of("a =\n").find("c.toml:1: missing value"), std::string::npos);
  EXPECT_NE(error_of("= 1\n").find("c.toml:1: expected a key"), std::string::npos);
  EXPECT_NE(error_of("[[x]]\n").find("arrays of tables"), std::string::npos);
  EXPECT_NE(error_of("a = 1__0\n").find("'_' must sit between digits"), std::string::npos);
  EXPECT_NE(error_of("a = 99999999999999999999\n").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("a = 1979-05-27\n").find("is not a value"), std::string::npos);
}

TEST(ConfigFile, MissingFileIsNamed) {
  try {
    read_config_file("/nonexistent/recipe.toml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/recipe.toml"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::core
