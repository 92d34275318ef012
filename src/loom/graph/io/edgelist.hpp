// `loom import edgelist`: SNAP-style or CSV edge lists, gzip or plain, into a GraphData.
// Lines starting with '#' or '%' (and blank lines) are skipped. Fields are split on whitespace
// (runs of spaces/tabs) or on one delimiter character (auto-detected from the first edge line:
// ',' if present, else whitespace). Field 1 and 2 are the end points; with `weighted`, field 3 is
// a float weight; further fields are ignored. A line that is not an edge (too few fields, a
// number that is not an integer id, a bad weight) is an error naming the line, or, with
// skip_bad_lines, skipped and counted in provenance (counts.bad_lines_skipped).
// Ids: with num_nodes >= 0 they are used as given and must lie in [0, num_nodes). Otherwise
// integer ids are renumbered 0..N-1 in sorted numeric order (orig_id.npy keeps the originals,
// unless they already were 0..N-1); string ids (IdKind::kString; in auto mode, when at least 10%
// of the edge lines hold an id that is not a number, e.g. "alice") are renumbered in sorted byte
// order and kept in names.txt. In auto mode fewer lines of words among integer ids are stray lines,
// an error naming the first (or, with skip_bad_lines, skipped), and one line of words above
// integer ids is a header (an error naming it).
// Every input problem throws loom::Error naming the file and line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loom/core/enum_names.hpp"
#include "loom/graph/io/import_common.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::io {

enum class IdKind { kAuto, kNumeric, kString };
inline constexpr core::EnumNames<IdKind, 3> kIdKindNames{
    {{"auto", IdKind::kAuto}, {"numeric", IdKind::kNumeric}, {"string", IdKind::kString}}};

struct EdgeListImportOptions {
  std::string path;
  EdgePolicy policy;
  std::string delimiter = "auto";  // "auto", "whitespace", or a single character ("," ";" "\t")
  bool weighted = false;
  IdKind ids = IdKind::kAuto;
  std::int64_t num_nodes = -1;  // >= 0: identity ids in [0, num_nodes)
  bool skip_bad_lines = false;  // false: a line that is not an edge is an error
  std::optional<float> nan_as;  // replaces weights that are not finite (else they are an error)
};

// The graph with its edges spilled into `spill_dir` (the output's temporary folder) as they are
// read, to be written out of core (write_imported_store); and the same assembled in memory.
ImportedGraph read_edgelist(const EdgeListImportOptions& options, const std::string& spill_dir);
GraphData import_edgelist(const EdgeListImportOptions& options);

}  // namespace loom::graph::io
