// Feature matrices too large to hold in memory, as an importer hands them to the store writer
// (import_common.hpp's StreamedFeatures): rows copied chunk by chunk from an array of an .npz
// archive, or a .npy file the store maps where it lies. Either way every value is checked finite
// (or replaced, with --nan-as, when copied), with a progress bar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loom/graph/io/import_common.hpp"

namespace loom::graph::io {

// The 2-D float array `key` of the .npz at `archive` (rows x dim), copied into the store's
// feat.npy in the store's dtype when the store is written.
StreamedFeatures copied_npz_features(const std::string& archive, const std::string& key, std::int64_t rows,
                                     std::int64_t dim, std::optional<float> nan_as);
// The 2-D float .npy at `path`, copied into the store's feat.npy in the store's dtype.
StreamedFeatures copied_npy_features(const std::string& path, std::optional<float> nan_as);
// The same file left where it is: the store maps it (meta.feat_from); a value that is not finite
// is an error (a mapped file cannot be changed).
StreamedFeatures mapped_npy_features(const std::string& path);

}  // namespace loom::graph::io
