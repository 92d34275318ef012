#include "loom/graph/io/split_dict.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/log.hpp"
#include "loom/format/npy.hpp"
#include "loom/format/pickle.hpp"
#include "loom/format/zip_archive.hpp"

namespace loom::graph::io {

namespace {

using format::PickleValue;
using Kind = format::PickleValue::Kind;

// The bytes of a storage by its key (torch's data/<key> member, or a legacy file's storage block).
using StorageBytes = std::function<std::string(const std::string& key)>;

// Index values from raw little-endian integers of `width` bytes.
std::vector<std::int64_t> integers(std::string_view raw, std::size_t width, std::int64_t offset, std::int64_t count,
                                   const std::string& where) {
  const auto capacity = static_cast<std::int64_t>(raw.size() / width);
  if (offset < 0 || count < 0 || offset > capacity || count > capacity - offset)
    throw Error::in_file(where, 0, fmt::format("{} values at {} lie outside its {} bytes", count, offset, raw.size()));
  std::vector<std::int64_t> out(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const char* p = raw.data() + static_cast<std::size_t>(offset + i) * width;
    if (width == 8) {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      out[static_cast<std::size_t>(i)] = v;
    } else {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      out[static_cast<std::size_t>(i)] = v;
    }
  }
  return out;
}

// The bytes of a protocol-2 bytes object: _codecs.encode(text, 'latin1'), or bytes themselves.
std::string raw_bytes(const PickleValue& v, const std::string& where) {
  if (v.is(Kind::kBytes)) return v.text;
  if (!v.is(Kind::kCall) || !v.item(0, where).is_global("_codecs.encode") ||
      !v.item(1, where).item(0, where).is(Kind::kString))
    throw Error::in_file(where, 0, "array data is not bytes");
  const std::string& utf8 = v.item(1, where).item(0, where).text;  // code points 0-255, as UTF-8
  std::string out;
  out.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80)
      out.push_back(static_cast<char>(c));
    else if ((c & 0xe0) == 0xc0 && i + 1 < utf8.size())
      out.push_back(static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3f)));
    else
      throw Error::in_file(where, 0, "array bytes that are not latin-1");
  }
  return out;
}

std::int64_t integer(const PickleValue& v, const std::string& where) {
  if (!v.is(Kind::kInt) || !v.text.empty()) throw Error::in_file(where, 0, "a 64-bit integer expected in the pickle");
  return v.integer;
}

// numpy's pickle: BUILD(_reconstruct(ndarray, (0,), b'b'), (version, shape, dtype, fortran, data))
// with dtype BUILD(dtype('i8', False, True), (3, '<', ...)).
std::vector<std::int64_t> numpy_indices(const PickleValue& v, const std::string& where) {
  const PickleValue& state = v.item(1, where);
  if (!state.is(Kind::kTuple) || state.items.size() != 5)
    throw Error::in_file(where, 0, "not a numpy array's pickled state");
  const PickleValue& shape = state.item(1, where);
  if (!shape.is(Kind::kTuple) || shape.items.size() != 1)
    throw Error::in_file(where, 0, fmt::format("expected a 1-D index array, found {}-D", shape.items.size()));
  const PickleValue& dtype = state.item(2, where);
  const PickleValue& type = dtype.item(0, where).item(1, where).item(0, where);
  if (!dtype.is(Kind::kBuild) || !type.is(Kind::kString))
    throw Error::in_file(where, 0, "a numpy array without a dtype");
  const PickleValue& dtype_state = dtype.item(1, where);
  if (dtype_state.items.size() > 1 && dtype_state.item(1, where).is(Kind::kString) &&
      dtype_state.item(1, where).text == ">")
    throw Error::in_file(where, 0, "a big-endian array");
  if (state.item(3, where).is(Kind::kBool) && state.item(3, where).integer)
    throw Error::in_file(where, 0, "a Fortran-ordered array");
  static constexpr std::pair<std::string_view, std::size_t> kIndexTypes[] = {
      {"i8", 8}, {"u8", 8}, {"i4", 4}, {"u4", 4}};
  const auto* found =
      std::find_if(std::begin(kIndexTypes), std::end(kIndexTypes), [&](const auto& t) { return t.first == type.text; });
  if (found == std::end(kIndexTypes))
    throw Error::in_file(where, 0, fmt::format("index dtype '{}' (int64 or int32 expected)", type.text));
  return integers(raw_bytes(state.item(4, where), where), found->second, 0, integer(shape.item(0, where), where),
                  where);
}

// torch's pickle: _rebuild_tensor_v2(persistent_id(('storage', type, key, device, numel)),
// offset, size, stride, ...).
std::vector<std::int64_t> tensor_indices(const PickleValue& v, const StorageBytes& storage, const std::string& where) {
  const PickleValue& args = v.item(1, where);
  const PickleValue& pid = args.item(0, where).item(0, where);
  if (!args.item(0, where).is(Kind::kPersistentId) || !pid.item(1, where).is(Kind::kGlobal) ||
      !pid.item(2, where).is(Kind::kString))
    throw Error::in_file(where, 0, "a tensor without its storage");
  const std::string& type = pid.item(1, where).text;
  const std::size_t width = type.ends_with("LongStorage") ? 8 : type.ends_with("IntStorage") ? 4 : 0;
  if (width == 0) throw Error::in_file(where, 0, fmt::format("index tensor of {} (int64 or int32 expected)", type));
  const PickleValue& size = args.item(2, where);
  const PickleValue& stride = args.item(3, where);
  if (size.items.size() != 1)
    throw Error::in_file(where, 0, fmt::format("expected a 1-D index tensor, found {}-D", size.items.size()));
  const std::int64_t count = integer(size.item(0, where), where);
  if (stride.items.size() == 1 && integer(stride.item(0, where), where) != 1 && count > 1)
    throw Error::in_file(where, 0, "a strided tensor view (save a contiguous tensor)");
  return integers(storage(pid.item(2, where).text), width, integer(args.item(1, where), where), count, where);
}

SplitDict split_arrays(const PickleValue& root, const StorageBytes& storage, const std::string& path) {
  const PickleValue* dict = &root;
  // An OrderedDict arrives as a call with its items as a dict argument; take the items.
  if (dict->is(Kind::kCall) && dict->item(1, path).items.size() == 1 &&
      dict->item(1, path).item(0, path).is(Kind::kDict))
    dict = &dict->item(1, path).item(0, path);
  if (!dict->is(Kind::kDict)) throw Error::in_file(path, 0, "does not hold a dict of split name -> index array");
  SplitDict splits;
  for (std::size_t i = 0; i + 1 < dict->items.size(); i += 2) {
    const PickleValue& key = *dict->items[i];
    const PickleValue& value = *dict->items[i + 1];
    if (!key.is(Kind::kString)) throw Error::in_file(path, 0, "a split name that is not a string");
    const std::string where = fmt::format("{} (split '{}')", path, key.text);
    if (value.is(Kind::kBuild) && value.item(0, where).is(Kind::kCall) &&
        value.item(0, where).item(0, where).is_global("_reconstruct"))
      splits[key.text] = numpy_indices(value, where);
    else if (value.is(Kind::kCall) && value.item(0, where).is_global("_rebuild_tensor_v2"))
      splits[key.text] = tensor_indices(value, storage, where);
    else
      throw Error::in_file(where, 0, "is neither a tensor nor a numpy array");
  }
  return splits;
}

SplitDict read_zip_format(const std::string& path) {
  const auto archive = format::ZipArchive::open(path);
  auto read_member = [&](const format::ZipMember& m) {
    std::string bytes(static_cast<std::size_t>(m.size), '\0');
    format::ZipMemberReader(archive, m).read_exact(bytes.data(), bytes.size());
    return bytes;
  };
  const format::ZipMember* pickle = nullptr;
  for (const auto& m : archive.members())
    if (m.name == "data.pkl" || m.name.ends_with("/data.pkl")) pickle = &m;
  if (!pickle) throw Error::in_file(path, 0, "a zip archive without data.pkl: not a torch.save file");
  const std::string prefix = pickle->name.substr(0, pickle->name.size() - 8);
  const format::Pickle root = format::read_pickle(read_member(*pickle), path + ":" + pickle->name);
  return split_arrays(
      root.root(),
      [&](const std::string& key) {
        const format::ZipMember* m = archive.find(prefix + "data/" + key);
        if (!m) throw Error::in_file(path, 0, "storage '" + key + "' missing");
        return read_member(*m);
      },
      path);
}

// torch's legacy format (before torch 1.6): pickles of the magic number, protocol, system info,
// the object and its storage keys, then the storages. Numpy arrays are read from the object;
// tensors (in storages after it) are not.
SplitDict read_legacy_format(const std::string& path) {
  const std::string bytes = core::read_text_file(path);
  std::string_view rest(bytes);
  std::vector<format::Pickle> pickles;
  for (int i = 0; i < 4; ++i) {
    std::size_t used = 0;
    pickles.push_back(format::read_pickle(rest, path, &used));
    rest.remove_prefix(used);
  }
  if (!pickles[0].root().is(Kind::kInt) || !pickles[2].root().is(Kind::kDict))
    throw Error::in_file(path, 0, "neither a zip archive nor a legacy torch.save file");
  return split_arrays(
      pickles[3].root(),
      [&](const std::string&) -> std::string {
        throw Error::in_file(path, 0,
                             "tensors in torch's legacy format (before torch 1.6) are not read; save the dict again "
                             "with a newer torch, or its values as numpy arrays");
      },
      path);
}

std::vector<std::string> names_of(const SplitDict& dict) {
  std::vector<std::string> names;
  for (const auto& [name, ids] : dict) names.push_back(name);
  return names;
}

}  // namespace

SplitDict official_splits(const SplitDict& dict, const std::string& path, std::int64_t num_nodes) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> wanted = {
      {"train", {"train"}}, {"valid", {"valid", "val"}}, {"test", {"test", "test-dev"}}};
  SplitDict splits;
  std::vector<std::string> used;
  for (const auto& [name, sources] : wanted) {
    for (const char* source : sources) {
      const auto it = dict.find(source);
      if (it == dict.end()) continue;
      for (std::size_t i = 0; i < it->second.size(); ++i)
        if (it->second[i] < 0 || it->second[i] >= num_nodes)
          throw Error::in_file(
              path, 0,
              fmt::format("split '{}', entry {}: node id {} is outside [0, {})", source, i, it->second[i], num_nodes));
      splits[name] = it->second;
      used.push_back(source);
      break;
    }
    if (!splits.count(name))
      throw Error::in_file(path, 0,
                           fmt::format("has no '{}' split (names: {})", sources[0], fmt::join(names_of(dict), ", ")));
  }
  std::vector<std::string> left;
  for (const auto& name : names_of(dict))
    if (std::find(used.begin(), used.end(), name) == used.end()) left.push_back(name);
  if (!left.empty()) spdlog::info("{}: splits not imported: {}", path, fmt::join(left, ", "));
  return splits;
}

SplitDict read_split_dict(const std::string& path) {
  char head[2] = {};
  std::ifstream(path, std::ios::binary).read(head, 2);
  return head[0] == 'P' && head[1] == 'K' ? read_zip_format(path) : read_legacy_format(path);
}

}  // namespace loom::graph::io
