// A torch.save'd split dictionary (OGB's split_dict.pt, MAG240M's split_dict.pt): split name ->
// 1-D index array, each a torch tensor (int64/int32 storage) or a numpy integer array, in
// torch's zip format or its legacy one, read without Python (format/pickle.hpp). Anything else
// (a nested value, a float array, an unknown object) throws Error naming the file and key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom::graph::io {

using SplitDict = std::map<std::string, std::vector<std::int64_t>>;

SplitDict read_split_dict(const std::string& path);

// The store's train, valid and test splits from a split dict read from `path`: "train"; "valid"
// or "val"; "test" or else MAG240M's "test-dev" (its "test-challenge" has no public labels and is
// left out, named in a log line). Ids outside [0, num_nodes) throw Error naming file and split.
SplitDict official_splits(const SplitDict& dict, const std::string& path, std::int64_t num_nodes);

}  // namespace loom::graph::io
