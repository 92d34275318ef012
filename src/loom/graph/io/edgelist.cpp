#include "loom/graph/io/edgelist.hpp"

#include <charconv>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/core/line_reader.hpp"
#include "loom/core/log.hpp"
#include "loom/graph/finite_values.hpp"
#include "loom/graph/io/edge_spill.hpp"
#include "loom/graph/io/id_remap.hpp"
#include "loom/graph/io/import_common.hpp"

namespace loom::graph::io {

namespace {

// Splits a line into its first `max` fields: on runs of spaces/tabs (delim == 0) or on one
// character, with surrounding spaces trimmed.
struct Splitter {
  bool detect = false;
  char delim = 0;

  int split(std::string_view line, std::string_view* out, int max) const {
    const std::size_t n = line.size();
    std::size_t i = 0;
    int k = 0;
    if (delim == 0) {
      while (k < max) {
        while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == n) break;
        std::size_t j = i;
        while (j < n && line[j] != ' ' && line[j] != '\t') ++j;
        out[k++] = line.substr(i, j - i);
        i = j;
      }
      return k;
    }
    while (k < max) {
      const std::size_t j = line.find(delim, i);
      out[k++] = trim(line.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
      if (j == std::string_view::npos) break;
      i = j + 1;
    }
    return k;
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
};

// The words --delimiter takes, several spellings per splitter; besides them, one separator character
// other than those of numbers and comments (a digit, '-', '.', '#', '%').
constexpr std::pair<std::string_view, Splitter> kDelimiterWords[] = {
    {"auto", {.detect = true}}, {"whitespace", {}},       {" ", {}},
    {"tab", {.delim = '\t'}},   {"\\t", {.delim = '\t'}}, {"\t", {.delim = '\t'}},
    {"comma", {.delim = ','}},
};

Splitter parse_delimiter(const std::string& text) {
  for (const auto& [word, splitter] : kDelimiterWords)
    if (text == word) return splitter;
  LOOM_CHECK_ARG(text.size() == 1 && text[0] != '#' && text[0] != '%' && text[0] != '-' && text[0] != '.' &&
                     !(text[0] >= '0' && text[0] <= '9'),
                 "--delimiter", "'{}' is not auto, whitespace, tab, comma or one separator character", text);
  return Splitter{.delim = text[0]};
}

std::optional<std::int64_t> parse_id(std::string_view field) {
  const char* begin = field.data();
  const char* end = begin + field.size();
  if (begin != end && *begin == '+') ++begin;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (begin == end || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// True when the whole field is a number (so never a string id), e.g. "0.25" or "1e3".
bool is_number(std::string_view field) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return !field.empty() && ec == std::errc() && ptr == field.data() + field.size();
}

// Lines that are not edges: an error naming the line, or (skip) counted and reported once.
struct BadLines {
  bool skip = false;
  std::int64_t count = 0, first_line = 0;
  std::string first_reason;
  NonFinitePolicy weights;  // edge weights that are not finite: an error, or replaced (--nan-as)

  void handle(const core::LineReader& reader, const std::string& reason) {
    if (!skip) throw reader.error(reason + " (pass --bad-lines skip to skip lines that are not edges)");
    if (count++ == 0) {
      first_line = reader.line_number();
      first_reason = reason;
    }
  }
};

enum class LineResult { kEdge, kBad, kStop };

// Calls on_edge(src_field, dst_field, weight, reader) for every edge line and returns false
// when on_edge asks to stop (kStop); kBad lines go to `bad`. Detects the delimiter on the
// first edge line.
template <class OnEdge>
bool for_each_edge(const EdgeListImportOptions& o, Splitter& splitter, BadLines& bad, OnEdge&& on_edge) {
  core::LineReader reader(o.path);
  std::string_view line;
  std::string_view fields[3];
  const int want = o.weighted ? 3 : 2;
  while (reader.next(line)) {
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size() || line[i] == '#' || line[i] == '%') continue;
    if (!core::is_text(line)) {
      bad.handle(reader, core::quoted(line, reader) + ": not a text edge list");
      continue;
    }
    if (splitter.detect) {
      splitter.delim = line.find(',') != std::string_view::npos ? ',' : 0;
      splitter.detect = false;
    }
    const int k = splitter.split(line, fields, want);
    if (k < 2 || fields[0].empty() || fields[1].empty()) {
      bad.handle(reader, fmt::format("expected 2 fields (source, destination), found {}", core::quoted(line, reader)));
      continue;
    }
    float weight = 0.0f;
    if (o.weighted) {
      if (k < 3 || fields[2].empty()) {
        bad.handle(reader, "expected a weight in field 3 (--weighted)");
        continue;
      }
      auto [ptr, ec] = std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), weight);
      if (ec != std::errc() || ptr != fields[2].data() + fields[2].size()) {
        bad.handle(reader, fmt::format("field 3: weight {} is not a number", core::quoted(fields[2], reader)));
        continue;
      }
      weight = enforce_finite(weight, o.path, reader.line_number(), 3, "edge weight", bad.weights);
    }
    const LineResult result = on_edge(fields[0], fields[1], weight, reader);
    if (result == LineResult::kStop) return false;
    if (result == LineResult::kBad) continue;
  }
  return true;
}

[[noreturn]] void throw_no_edges(const std::string& path) {
  throw Error::in_file(path, 0, "no edges: the file is empty or holds only comments");
}

// The first edge line held words and the next integer ids: a header line. An error naming it,
// or (--bad-lines skip) a skipped line.
void header_line_found(const EdgeListImportOptions& o, BadLines& bad, std::int64_t line, const std::string& header) {
  const std::string reason = fmt::format(
      "'{}' looks like a header line (the lines after it hold integer ids): delete it or begin it with "
      "# to make it a comment",
      header);
  if (!bad.skip) throw Error::in_file(o.path, line, reason + " (or pass --bad-lines skip)");
  if (bad.count++ == 0) {
    bad.first_line = line;
    bad.first_reason = reason;
  }
}

// The edges read as integer ids: in the id space --num-nodes sets, or renumbered 0..N-1 in sorted
// order (orig_id holding the ids) unless they already were.
void finish_numeric_ids(const EdgeListImportOptions& o, IntIdRemap& remap, EdgeSpill& edges, GraphData& data) {
  if (edges.size() == 0) throw_no_edges(o.path);
  if (o.num_nodes >= 0) {
    edges.finish(o.num_nodes);
    data.id_map_note = fmt::format("ids used as given; --num-nodes {} fixes the id space", o.num_nodes);
    return;
  }
  std::vector<std::int64_t> sorted_ids;
  DenseOrder order = remap.finish(sorted_ids);
  edges.finish(remap.size(), order);
  if (order.identity) {
    data.id_map_note = "ids used as given: they already were 0..N-1";
  } else {
    data.orig_id = std::move(sorted_ids);
    data.id_map_note = "sparse ids remapped to 0..N-1 in sorted numeric order; orig_id.npy holds the original ids";
  }
}

// Lines whose ids are words (auto mode): string ids when they are at least kWordShare of the edge
// lines, else stray lines among integer ids (an error naming the first, or skipped).
constexpr std::int64_t kWordShare = 10;     // percent
constexpr std::int64_t kDecideAfter = 100;  // edge lines: enough to tell a file of names early
struct WordLines {
  std::int64_t count = 0, first_line = 0;
  std::string first_field;
  int first_index = 0;
  // Whether `count` of `lines` edge lines make a file of string ids.
  bool are_names(std::int64_t lines) const { return count > 0 && count * 100 >= kWordShare * lines; }
};

// Too few lines of words (`words` of `lines`) for a file of string ids: an error naming the first,
// or with --bad-lines skip, bad lines counted.
void count_word_lines(const EdgeListImportOptions& o, const WordLines& words, std::int64_t lines, BadLines& bad) {
  const std::string reason = fmt::format(
      "field {}: {} is not an integer id, and only {} of the {} edge lines hold words (below {}%, too few for a "
      "file of string ids): pass --string-ids to read every id as a string",
      words.first_index, words.first_field, words.count, lines, kWordShare);
  if (!bad.skip) throw Error::in_file(o.path, words.first_line, reason + ", or --bad-lines skip to skip them");
  if (bad.count == 0 || words.first_line < bad.first_line) {
    bad.first_line = words.first_line;
    bad.first_reason = reason;
  }
  bad.count += words.count;
}

// Integer ids. Returns false (auto mode) when the ids are names (WordLines::are_names).
bool read_numeric(const EdgeListImportOptions& o, Splitter& splitter, bool allow_switch, BadLines& bad,
                  EdgeSpill& edges, GraphData& data) {
  IntIdRemap remap;
  const bool identity = o.num_nodes >= 0;
  WordLines words;
  // A first edge line of words: a header when the next one holds integer ids (then an error).
  std::int64_t header_line = 0;
  std::string header;
  const bool complete = for_each_edge(
      o, splitter, bad, [&](std::string_view a, std::string_view b, float w, const core::LineReader& reader) {
        const auto u = parse_id(a), v = parse_id(b);
        if (!u || !v) {
          const int index = u ? 2 : 1;
          const std::string field(u ? b : a);
          if (!allow_switch || is_number(field)) {
            bad.handle(reader, fmt::format("field {}: {} is not an integer id", index, core::quoted(field, reader)));
            return LineResult::kBad;
          }
          if (words.count++ == 0) {
            words.first_line = reader.line_number();
            words.first_field = core::quoted(field, reader);
            words.first_index = index;
          }
          if (header_line == 0 && edges.size() == 0 && words.count == 1) {
            header_line = reader.line_number();
            header = fmt::format("{} {}", a, b);
          }
          const std::int64_t lines = words.count + edges.size();
          return lines >= kDecideAfter && words.are_names(lines) ? LineResult::kStop : LineResult::kBad;
        }
        if (header_line != 0 && edges.size() == 0 && words.count == 1) {
          header_line_found(o, bad, header_line, header);  // throws unless --bad-lines skip, which counts it
          words = WordLines{};
        }
        if (identity) {
          for (int f = 0; f < 2; ++f) {
            const auto id = f == 0 ? *u : *v;
            if (id < 0 || id >= o.num_nodes)
              throw reader.error(
                  fmt::format("field {}: id {} is outside [0, {}) set by --num-nodes", f + 1, id, o.num_nodes));
          }
          edges.add(*u, *v, w);
        } else {
          const std::int64_t a_id = remap.insert(*u);
          edges.add(a_id, remap.insert(*v), w);
        }
        return LineResult::kEdge;
      });
  const std::int64_t lines = words.count + edges.size();
  if (!complete || words.are_names(lines)) {
    spdlog::info(
        "{}:{}: id {} is not an integer, nor are the ids of {} of the {} edge lines read: reading all ids "
        "as strings",
        o.path, words.first_line, words.first_field, words.count, lines);
    return false;
  }
  if (words.count > 0) count_word_lines(o, words, lines, bad);
  finish_numeric_ids(o, remap, edges, data);
  return true;
}

void read_strings(const EdgeListImportOptions& o, Splitter& splitter, BadLines& bad, EdgeSpill& edges,
                  GraphData& data) {
  StringIdRemap remap;
  for_each_edge(o, splitter, bad, [&](std::string_view a, std::string_view b, float w, const core::LineReader&) {
    const std::int64_t a_id = remap.insert(a);
    edges.add(a_id, remap.insert(b), w);
    return LineResult::kEdge;
  });
  if (edges.size() == 0) throw_no_edges(o.path);
  edges.finish(remap.size(), remap.finish(data.names));
  data.id_map_note = "string ids mapped to 0..N-1 in sorted (byte-wise) order; names.txt holds the names";
}

}  // namespace

ImportedGraph read_edgelist(const EdgeListImportOptions& o, const std::string& spill_dir) {
  require_source(o.path, "SRC", /*directory=*/false);
  Splitter splitter = parse_delimiter(o.delimiter);
  LOOM_CHECK_ARG(!(o.num_nodes >= 0 && o.ids == IdKind::kString), "--num-nodes",
                 "cannot be combined with string ids (--num-nodes means integer ids used as given)");
  LOOM_CHECK_ARG(o.num_nodes == -1 || o.num_nodes > 0, "--num-nodes", "must be positive, got {}", o.num_nodes);
  if (o.num_nodes > 0) check_node_memory(o.num_nodes);

  ImportedGraph g;
  g.policy = o.policy;
  GraphData& data = g.nodes;
  auto spill = std::make_unique<EdgeSpill>(spill_dir, o.weighted);
  BadLines bad;
  bad.skip = o.skip_bad_lines;
  bad.weights.replacement = o.nan_as;
  IdKind used = o.ids;
  if (o.ids != IdKind::kString) {
    const bool allow_switch = o.ids == IdKind::kAuto && o.num_nodes < 0;
    used = read_numeric(o, splitter, allow_switch, bad, *spill, data) ? IdKind::kNumeric : IdKind::kString;
  }
  if (used == IdKind::kString) {
    bad = BadLines{};
    bad.skip = o.skip_bad_lines;
    bad.weights.replacement = o.nan_as;
    spill = std::make_unique<EdgeSpill>(spill_dir, o.weighted);
    read_strings(o, splitter, bad, *spill, data);
  }
  if (bad.count > 0) {
    spdlog::warn("{}: skipped {} lines that are not edges (first: line {}: {})", o.path, bad.count, bad.first_line,
                 bad.first_reason);
    data.provenance["counts"]["bad_lines_skipped"] = bad.count;
    data.provenance["counts"]["first_bad_line"] = bad.first_line;
  }
  const std::int64_t num_nodes = spill->num_nodes();
  data.rows_without_csr = num_nodes;
  data.provenance["importer"] = "edgelist";
  data.provenance["source"] = std::filesystem::absolute(o.path).lexically_normal().string();
  data.provenance["options"] = {
      {"delimiter", splitter.delim == 0 ? std::string("whitespace") : std::string(1, splitter.delim)},
      {"weighted", o.weighted},
      {"bad_lines", o.skip_bad_lines ? "skip" : "error"},
      {"ids", core::enum_name(kIdKindNames, o.ids)},
      {"ids_read_as", core::enum_name(kIdKindNames, used)},
      {"num_nodes", o.num_nodes}};
  data.provenance["counts"]["nodes"] = num_nodes;
  if (o.nan_as) data.provenance["non_finite"] = bad.weights.to_json();
  g.edges = std::move(spill);
  return g;
}

GraphData import_edgelist(const EdgeListImportOptions& o) {
  const core::TempDir spill;
  return assemble_in_memory(read_edgelist(o, spill.path()));
}

}  // namespace loom::graph::io
