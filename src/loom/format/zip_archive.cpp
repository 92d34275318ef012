#include "loom/format/zip_archive.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::format {

namespace {

constexpr std::uint32_t kEndOfDirectory = 0x06054b50, kZip64Locator = 0x07064b50, kZip64End = 0x06064b50,
                        kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;
constexpr std::size_t kInputChunk = std::size_t{1} << 20;

std::uint64_t load_le(const unsigned char* p, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// The open file of an archive; closed when it goes.
struct File {
  int fd = -1;
  std::string path;
  std::uint64_t size = 0;
  explicit File(const std::string& p) : path(p) {
    fd = ::open(p.c_str(), O_RDONLY);
    if (fd < 0) throw Error::in_file(p, 0, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    ::fstat(fd, &st);
    size = static_cast<std::uint64_t>(st.st_size);
  }
  ~File() {
    if (fd >= 0) ::close(fd);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  std::vector<unsigned char> read_at(std::uint64_t offset, std::size_t bytes, const char* what) const {
    if (offset > size || bytes > size - offset)
      throw Error::in_file(path, 0, fmt::format("truncated zip archive ({} at byte {} past the end)", what, offset));
    std::vector<unsigned char> out(bytes);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t got = ::pread(fd, out.data() + done, bytes - done, static_cast<off_t>(offset + done));
      if (got <= 0) throw Error::in_file(path, 0, std::string("read failed: ") + std::strerror(errno));
      done += static_cast<std::size_t>(got);
    }
    return out;
  }
};

// Where the central directory starts and how many entries it has (zip64 where the classic record
// says so).
struct Directory {
  std::uint64_t offset = 0, bytes = 0, entries = 0;
};

Directory find_directory(const File& file) {
  const std::uint64_t tail_bytes = std::min<std::uint64_t>(file.size, 22 + 65535);
  if (file.size < 22) throw Error::in_file(file.path, 0, "not a zip archive (too short)");
  const auto tail = file.read_at(file.size - tail_bytes, tail_bytes, "end record");
  std::int64_t at = static_cast<std::int64_t>(tail_bytes) - 22;
  while (at >= 0 && load_le(&tail[at], 4) != kEndOfDirectory) --at;
  if (at < 0) throw Error::in_file(file.path, 0, "not a zip archive (no end of central directory record)");
  const unsigned char* end = &tail[at];
  Directory d{load_le(end + 16, 4), load_le(end + 12, 4), load_le(end + 10, 2)};
  const std::uint64_t end_offset = file.size - tail_bytes + static_cast<std::uint64_t>(at);
  if (d.offset == 0xffffffffu || d.bytes == 0xffffffffu || d.entries == 0xffffu) {
    if (end_offset < 20) throw Error::in_file(file.path, 0, "zip64 archive without its locator");
    const auto locator = file.read_at(end_offset - 20, 20, "zip64 locator");
    if (load_le(locator.data(), 4) != kZip64Locator) throw Error::in_file(file.path, 0, "zip64 locator missing");
    const auto record = file.read_at(load_le(locator.data() + 8, 8), 56, "zip64 end record");
    if (load_le(record.data(), 4) != kZip64End) throw Error::in_file(file.path, 0, "zip64 end record missing");
    d = {load_le(record.data() + 48, 8), load_le(record.data() + 40, 8), load_le(record.data() + 32, 8)};
  }
  return d;
}

// Sizes and offset that the classic fields give as 0xffffffff, from the zip64 extra field.
void read_zip64_extra(const unsigned char* extra, std::size_t bytes, ZipMember& m, const std::string& path) {
  std::size_t at = 0;
  while (at + 4 <= bytes) {
    const auto tag = load_le(extra + at, 2), length = load_le(extra + at + 2, 2);
    if (at + 4 + length > bytes) break;
    if (tag == 0x0001) {
      const unsigned char* p = extra + at + 4;
      std::size_t left = length;
      for (std::uint64_t* field : {&m.size, &m.compressed_size, &m.local_header_offset}) {
        if (*field != 0xffffffffu) continue;
        if (left < 8) throw Error::in_file(path, 0, "member '" + m.name + "': short zip64 extra field");
        *field = load_le(p, 8);
        p += 8, left -= 8;
      }
      return;
    }
    at += 4 + length;
  }
}

}  // namespace

ZipArchive ZipArchive::open(const std::string& path) {
  const File file(path);
  const Directory d = find_directory(file);
  const auto bytes = file.read_at(d.offset, d.bytes, "central directory");
  ZipArchive archive;
  archive.path_ = path;
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < d.entries; ++i) {
    if (at + 46 > bytes.size() || load_le(&bytes[at], 4) != kDirectoryEntry)
      throw Error::in_file(path, 0, fmt::format("malformed central directory (entry {})", i));
    const unsigned char* e = &bytes[at];
    const std::size_t name_bytes = load_le(e + 28, 2), extra_bytes = load_le(e + 30, 2),
                      comment_bytes = load_le(e + 32, 2);
    if (at + 46 + name_bytes + extra_bytes + comment_bytes > bytes.size())
      throw Error::in_file(path, 0, fmt::format("malformed central directory (entry {})", i));
    ZipMember m;
    m.name.assign(reinterpret_cast<const char*>(e + 46), name_bytes);
    m.method = static_cast<int>(load_le(e + 10, 2));
    m.crc32 = static_cast<std::uint32_t>(load_le(e + 16, 4));
    m.compressed_size = load_le(e + 20, 4);
    m.size = load_le(e + 24, 4);
    m.local_header_offset = load_le(e + 42, 4);
    read_zip64_extra(e + 46 + name_bytes, extra_bytes, m, path);
    if (load_le(e + 8, 2) & 1) throw Error::in_file(path, 0, "member '" + m.name + "' is encrypted");
    // Sizes the file can hold: stored bytes within it, deflate at most ~1032:1 (its limit).
    const bool fits = m.local_header_offset < file.size && m.compressed_size <= file.size - m.local_header_offset &&
                      (m.method == 0 ? m.size == m.compressed_size : m.size / 1032 <= m.compressed_size + 64);
    if (!fits)
      throw Error::in_file(path, 0,
                           fmt::format("member '{}' claims {} bytes ({} stored) that this {}-byte archive cannot hold",
                                       m.name, m.size, m.compressed_size, file.size));
    archive.members_.push_back(std::move(m));
    at += 46 + name_bytes + extra_bytes + comment_bytes;
  }
  return archive;
}

const ZipMember* ZipArchive::find(const std::string& name) const {
  for (const auto& m : members_)
    if (m.name == name) return &m;
  return nullptr;
}

struct ZipMemberReader::Inflater {
  z_stream stream{};
  bool ended = false;
  Inflater() {
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) throw Error("zlib: inflateInit2 failed");
  }
  ~Inflater() { inflateEnd(&stream); }
};

ZipMemberReader::ZipMemberReader(const ZipArchive& archive, const ZipMember& member)
    : path_(archive.path()), member_(member) {
  if (member_.method != 0 && member_.method != 8)
    throw Error::in_file(path_, 0,
                         fmt::format("member '{}': compression method {} (only stored and deflated are read)",
                                     member_.name, member_.method));
  fd_ = ::open(path_.c_str(), O_RDONLY);
  if (fd_ < 0) throw Error::in_file(path_, 0, std::string("cannot open: ") + std::strerror(errno));
  unsigned char header[30];
  if (::pread(fd_, header, 30, static_cast<off_t>(member_.local_header_offset)) != 30 ||
      load_le(header, 4) != kLocalHeader)
    throw Error::in_file(path_, 0, "member '" + member_.name + "': no local header where the directory says");
  data_offset_ = member_.local_header_offset + 30 + load_le(header + 26, 2) + load_le(header + 28, 2);
  if (member_.method == 8) inflater_ = std::make_unique<Inflater>();
  ::posix_fadvise(fd_, static_cast<off_t>(data_offset_), static_cast<off_t>(member_.compressed_size),
                  POSIX_FADV_SEQUENTIAL);
}

ZipMemberReader::~ZipMemberReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::string ZipMemberReader::where() const { return path_ + ":" + member_.name; }

void ZipMemberReader::fill_input() {
  const std::uint64_t left = member_.compressed_size - consumed_;
  input_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(left, kInputChunk)));
  std::size_t done = 0;
  while (done < input_.size()) {
    const ssize_t got =
        ::pread(fd_, input_.data() + done, input_.size() - done, static_cast<off_t>(data_offset_ + consumed_ + done));
    if (got <= 0)
      throw Error::in_file(path_, 0,
                           fmt::format("member '{}' is truncated ({})", member_.name,
                                       got == 0 ? "the archive ends inside it" : std::strerror(errno)));
    done += static_cast<std::size_t>(got);
  }
  consumed_ += input_.size();
}

std::size_t ZipMemberReader::read_stored(unsigned char* out, std::size_t bytes) {
  const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, member_.size - position_));
  std::size_t done = 0;
  while (done < want) {
    const ssize_t got = ::pread(fd_, out + done, want - done, static_cast<off_t>(data_offset_ + position_ + done));
    if (got <= 0) throw Error::in_file(path_, 0, fmt::format("member '{}' is truncated", member_.name));
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::size_t ZipMemberReader::read_deflated(unsigned char* out, std::size_t bytes) {
  z_stream& z = inflater_->stream;
  z.next_out = out;
  z.avail_out = static_cast<uInt>(std::min<std::size_t>(bytes, 1u << 30));
  while (z.avail_out > 0 && !inflater_->ended) {
    if (z.avail_in == 0) {
      if (consumed_ == member_.compressed_size)
        throw Error::in_file(path_, 0, fmt::format("member '{}': deflate stream ends early", member_.name));
      fill_input();
      z.next_in = input_.data();
      z.avail_in = static_cast<uInt>(input_.size());
    }
    const int status = inflate(&z, Z_NO_FLUSH);
    if (status == Z_STREAM_END)
      inflater_->ended = true;
    else if (status != Z_OK)
      throw Error::in_file(path_, 0,
                           fmt::format("member '{}': corrupt deflate data ({})", member_.name, z.msg ? z.msg : "zlib"));
  }
  return static_cast<std::size_t>(z.next_out - out);
}

std::size_t ZipMemberReader::read(void* out, std::size_t bytes) {
  auto* p = static_cast<unsigned char*>(out);
  const std::size_t got = member_.method == 0 ? read_stored(p, bytes) : read_deflated(p, bytes);
  crc_ = static_cast<std::uint32_t>(crc32_z(crc_, p, got));
  position_ += got;
  if (position_ > member_.size)
    throw Error::in_file(path_, 0, fmt::format("member '{}' inflates past its recorded size", member_.name));
  if (got < bytes || position_ == member_.size) check_crc_at_end();
  return got;
}

void ZipMemberReader::check_crc_at_end() {
  if (position_ != member_.size)
    throw Error::in_file(
        path_, 0, fmt::format("member '{}' is truncated: {} of {} bytes", member_.name, position_, member_.size));
  if (crc_ != member_.crc32)
    throw Error::in_file(path_, 0,
                         fmt::format("member '{}': CRC-32 {:08x}, the archive records {:08x} (a damaged download?)",
                                     member_.name, crc_, member_.crc32));
}

void ZipMemberReader::read_exact(void* out, std::size_t bytes) {
  if (bytes > member_.size - position_)
    throw Error::in_file(path_, 0,
                         fmt::format("member '{}' is truncated: {} bytes wanted at byte {} of {}", member_.name, bytes,
                                     position_, member_.size));
  if (read(out, bytes) != bytes) throw Error::in_file(path_, 0, fmt::format("member '{}' is truncated", member_.name));
}

void ZipMemberReader::skip(std::uint64_t bytes) {
  std::vector<unsigned char> scratch(static_cast<std::size_t>(std::min<std::uint64_t>(bytes, kInputChunk)));
  while (bytes > 0) {
    const auto step = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, scratch.size()));
    read_exact(scratch.data(), step);
    bytes -= step;
  }
}

}  // namespace loom::format
