// Vertex inclusion probability (VIP), SALIENT++'s analysis of multi-hop neighbour sampling: the
// probability that a vertex is among the input nodes of one mini-batch drawn by a trainer whose
// seeds are `batch_size` of the training ids T, sampling fanouts f_1..f_L (f_1 the hop from the
// seeds, as in NeighborSampler; -1 = all neighbours) over a symmetric CSR:
//   p_0(v) = b/|T| for v in T, else 0
//   p_h(v) = 1 - prod_{u in N(v)} (1 - min(1, f_h/deg(u)) * p_{h-1}(u))
//   VIP(v) = 1 - prod_{h=1..L} (1 - p_h(v))
// Products are sums of log1p terms, so probabilities near 1 keep their order; each hop is one
// parallel pull over the CSR, O(L (|V| + |E|)) in all.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/graph/csr.hpp"

namespace loom::feature {

// -log(1 - VIP(v)) for every vertex: 0 for a vertex no batch can reach, +inf for one every batch
// includes. Monotone in VIP, and exact in ranking where VIP rounds to 1 in double precision.
std::vector<double> vip_log_miss(const graph::Csr& graph, std::span<const std::int64_t> train_ids,
                                 std::int64_t batch_size, std::span<const std::int32_t> fanouts);

// VIP(v) itself, from vip_log_miss().
std::vector<double> vip_probabilities(const graph::Csr& graph, std::span<const std::int64_t> train_ids,
                                      std::int64_t batch_size, std::span<const std::int32_t> fanouts);

}  // namespace loom::feature
