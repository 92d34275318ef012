// ZIP archives as numpy (np.savez, np.savez_compressed) and torch.save write them: the central
// directory (zip64 included, as numpy writes every member of a large .npz) lists the members, and
// one member, stored or deflated, is read as a stream of bytes: never the whole member in memory.
// Its CRC-32 is checked when the stream reaches its end. Any malformed archive, unsupported
// method or truncated member throws Error naming the file (and member).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom::format {

struct ZipMember {
  std::string name;
  int method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0, size = 0;
  std::uint64_t local_header_offset = 0;
};

class ZipArchive {
 public:
  static ZipArchive open(const std::string& path);
  const std::string& path() const { return path_; }
  const std::vector<ZipMember>& members() const { return members_; }
  // The member named `name`, or nullptr.
  const ZipMember* find(const std::string& name) const;

 private:
  std::string path_;
  std::vector<ZipMember> members_;
};

// The bytes of one member, front to back.
class ZipMemberReader {
 public:
  ZipMemberReader(const ZipArchive& archive, const ZipMember& member);
  ~ZipMemberReader();
  ZipMemberReader(const ZipMemberReader&) = delete;
  ZipMemberReader& operator=(const ZipMemberReader&) = delete;

  // Reads up to `bytes` bytes into `out`; fewer only at the member's end.
  std::size_t read(void* out, std::size_t bytes);
  // Reads exactly `bytes` bytes, else throws naming the member as truncated.
  void read_exact(void* out, std::size_t bytes);
  // Reads and discards `bytes` bytes (a deflated member has no shortcut).
  void skip(std::uint64_t bytes);
  std::uint64_t position() const { return position_; }
  std::uint64_t size() const { return member_.size; }
  // "archive.npz:member", for messages.
  std::string where() const;

 private:
  struct Inflater;
  void fill_input();
  std::size_t read_stored(unsigned char* out, std::size_t bytes);
  std::size_t read_deflated(unsigned char* out, std::size_t bytes);
  void check_crc_at_end();
  std::string path_;
  ZipMember member_;
  int fd_ = -1;
  std::uint64_t data_offset_ = 0, consumed_ = 0, position_ = 0;  // consumed_: compressed bytes read
  std::uint32_t crc_ = 0;
  std::vector<unsigned char> input_;
  std::unique_ptr<Inflater> inflater_;
};

}  // namespace loom::format
