#include "support/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "loom/core/fs.hpp"

namespace fs = std::filesystem;

namespace loom::test {

std::string data_dir() {
  if (const char* env = std::getenv("LOOM_DATA"); env && *env) return env;
  return std::string(LOOM_SOURCE_DIR) + "/../shared/data";
}

std::string source_dir() { return LOOM_SOURCE_DIR; }

bool exists(const std::string& path) { return fs::exists(path); }

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  path_ = (fs::temp_directory_path() / ("loom-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
              .string();
  core::remove_tree(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() { core::remove_tree(path_); }

std::string loom_binary() { return LOOM_BINARY; }

CommandResult run_loom(const std::string& args) { return run_command(loom_binary() + " " + args); }

CommandResult run_command(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  CommandResult result;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char((v >> 16) & 0xff), char((v >> 8) & 0xff), char(v & 0xff)};
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

namespace {

// meta.json without what records how long writing took: "provenance" and any "seconds" (and the
// seal, "meta_digest", which covers them).
nlohmann::json without_timings(nlohmann::json j) {
  if (!j.is_object()) return j;
  j.erase("provenance");
  j.erase("seconds");
  j.erase("meta_digest");
  for (auto& [key, value] : j.items()) value = without_timings(value);
  return j;
}

}  // namespace

int expect_same_store(const std::string& a, const std::string& b) {
  int compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(a)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = fs::relative(entry.path(), a).string();
    const std::string other = b + "/" + relative;
    if (!fs::exists(other)) {
      ADD_FAILURE() << relative << " is in " << a << " but not in " << b;
      continue;
    }
    ++compared;
    if (entry.path().filename() == "meta.json") {
      EXPECT_EQ(without_timings(nlohmann::json::parse(read_bytes(entry.path().string()))),
                without_timings(nlohmann::json::parse(read_bytes(other))))
          << relative;
    } else {
      EXPECT_TRUE(read_bytes(entry.path().string()) == read_bytes(other)) << relative << " differs";
    }
  }
  for (const auto& entry : fs::recursive_directory_iterator(b))
    if (entry.is_regular_file() && !fs::exists(a + "/" + fs::relative(entry.path(), b).string()))
      ADD_FAILURE() << fs::relative(entry.path(), b).string() << " is in " << b << " but not in " << a;
  return compared;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write_file(const std::string& path, const std::string& text, bool gzip) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
}

void write_gz_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [file, text] : files) {
    fs::create_directories(fs::path(dir + "/" + file).parent_path());
    write_file(dir + "/" + file, text, /*gzip=*/true);
  }
}

}  // namespace loom::test
