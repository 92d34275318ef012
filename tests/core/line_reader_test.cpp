#include "loom/core/line_reader.hpp"

#include <filesystem>

#include "support/test_support.hpp"

namespace loom::core {
namespace {

std::vector<std::string> read_all(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) lines.emplace_back(line);
  return lines;
}

TEST(LineReader, ReadsPlainAndGzipAlike) {
  test::ScratchDir dir;
  const std::string text = "a,b\r\nc\n\nlast";
  test::write_file(dir / "p.txt", text);
  test::write_file(dir / "g.txt.gz", text, /*gzip=*/true);
  const std::vector<std::string> expected = {"a,b", "c", "", "last"};
  EXPECT_EQ(read_all(dir / "p.txt"), expected);
  EXPECT_EQ(read_all(dir / "g.txt.gz"), expected);
}

TEST(LineReader, TruncatedGzipIsAnErrorNamingTheFile) {
  test::ScratchDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i * 7919) + "," + std::to_string(i) + "\n";
  test::write_file(dir / "t.csv.gz", text, /*gzip=*/true);
  std::filesystem::resize_file(dir / "t.csv.gz", std::filesystem::file_size(dir / "t.csv.gz") / 2);
  try {
    read_all(dir / "t.csv.gz");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), dir / "t.csv.gz");
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
  }
}

TEST(LineReader, ParseErrorsNameLineAndField) {
  test::ScratchDir dir;
  test::write_file(dir / "x.txt", "1 2\n3 x4\n");
  LineReader reader(dir / "x.txt");
  std::string_view line;
  std::vector<std::string_view> fields;
  reader.next(line);
  split_fields(line, " ", true, fields);
  EXPECT_EQ(parse_int(fields[1], reader, 1), 2);
  reader.next(line);
  split_fields(line, " ", true, fields);
  try {
    parse_int(fields[1], reader, 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("field 2"), std::string::npos);
  }
}

TEST(SplitFields, CollapsesWhitespaceButKeepsEmptyCsvFields) {
  std::vector<std::string_view> f;
  split_fields("  1 \t 2  ", " \t", true, f);
  EXPECT_EQ(f.size(), 2u);
  split_fields("1,,3", ",", false, f);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1], "");
}

}  // namespace
}  // namespace loom::core
