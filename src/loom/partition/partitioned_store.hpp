// A partitioned store: what `loom partition` writes and distributed trainers read.
//   meta.json          PartitionedMeta: format "loom-partitioned", the partition book
//                      ("node_offsets", K+1), method, seed, source path, the quality report and
//                      the whole graph's description (graph::GraphDescription: global counts,
//                      splits as totals, id map), under the keys a graph store uses
//   new_to_source.npy  int64 [nodes]: new global id -> dense id of the source store
//   topology/          a graph store of the whole graph in new ids (structure only, plus global
//                      split ids and original ids), so samplers can replicate the structure
//   part-<k>/          a graph store of part k: rows = its nodes (global ids node_offset + row),
//                      CSR neighbours as new global ids (its range of topology/, which it maps:
//                      meta.rows_from; stores written before hold a copy), feature and label rows, splits as local
//                      row ids, orig_id.npy (or names.txt) = original ids of the source's input,
//                      halo_ids.npy (int64, sorted global ids of remote neighbours, hence grouped
//                      by owner) and halo_offsets.npy (int64 [K+1], where each owner's group starts)
// PartitionedStore::open maps; nothing is copied. part(k) opens one part on demand (a rank
// reads only its own). Opening checks that meta, topology and parts agree and throws Error
// naming the file when they do not.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/format/digest.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partition_book.hpp"
#include "loom/partition/quality.hpp"

namespace loom::partition {

struct PartitionedMeta {
  // The whole graph, under the same meta.json keys as a graph store's: counts of the whole graph,
  // splits as totals over all parts, id_map what the parts store (orig_id.npy or names.txt).
  graph::GraphDescription graph;
  std::string method;
  std::uint64_t seed = 0;
  std::string source;  // the source store's path, as given
  PartitionBook book;
  PartitionQuality quality;

  int num_parts() const { return book.num_parts(); }
  nlohmann::json to_json() const;
  static PartitionedMeta from_json(const nlohmann::json& j, const std::string& path);
};

// One part, opened: its graph store and its halo.
class Part {
 public:
  int index() const { return index_; }
  IdRange range() const { return range_; }
  const graph::GraphStore& store() const { return store_; }
  // Sorted global ids of the remote neighbours of this part's nodes.
  std::span<const std::int64_t> halo_ids() const { return halo_ids_.span<std::int64_t>(); }
  // K+1 positions into halo_ids(): owner q's ids are [halo_offsets()[q], halo_offsets()[q+1]).
  std::span<const std::int64_t> halo_offsets() const { return halo_offsets_.span<std::int64_t>(); }
  std::span<const std::int64_t> halo_from(int owner) const;

 private:
  friend class PartitionedStore;
  int index_ = 0;
  IdRange range_;
  graph::GraphStore store_;
  format::NpyArray halo_ids_, halo_offsets_;
};

class PartitionedStore {
 public:
  // `verify`: check the meta.json seals of the store and of the parts it opens (format/digest.hpp).
  static PartitionedStore open(const std::string& dir, bool verify = format::digest_verification());

  const std::string& dir() const { return dir_; }
  const PartitionedMeta& meta() const { return meta_; }
  const PartitionBook& book() const { return meta_.book; }
  int num_parts() const { return meta_.num_parts(); }
  // The whole graph in new ids (no features or labels).
  const graph::GraphStore& topology() const { return topology_; }
  // New global id -> dense id of the source store.
  std::span<const std::int64_t> new_to_source() const { return new_to_source_.span<std::int64_t>(); }
  std::string part_dir(int k) const { return dir_ + "/part-" + std::to_string(k); }
  // Opens part k (0 <= k < num_parts()), checking it against the book.
  Part part(int k) const;

 private:
  std::string dir_;
  PartitionedMeta meta_;
  graph::GraphStore topology_;
  format::NpyArray new_to_source_;
  bool verify_ = true;
};

}  // namespace loom::partition
