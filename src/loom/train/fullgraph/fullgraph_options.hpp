// Options of full-graph training (`loom fullgraph`), as a plain struct that the CLI fills and
// tests and benchmarks build directly. See fullgraph_layout.hpp for the modes.
#pragma once

#include <cstdint>
#include <string>

#include "loom/comm/link_model.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/nn/deep_model.hpp"
#include "loom/train/fullgraph/fullgraph_layout.hpp"
#include "loom/train/run_options.hpp"

namespace loom::train {

// What happens to cross-chunk gradients that arrive after their chunk's backward (see cross_grad).
enum class CrossGrad { kUnbiased, kStale, kDrop };
inline constexpr core::EnumNames<CrossGrad, 3> kCrossGradNames{
    {{"unbiased", CrossGrad::kUnbiased}, {"stale", CrossGrad::kStale}, {"drop", CrossGrad::kDrop}}};

struct FullGraphOptions {
  std::string store;  // partitioned store: one part per rank (graph) or per chunk (pipe, hybrid)
  FullGraphMode mode = FullGraphMode::kGraph;
  nn::DeepModelOptions model;  // in_features and num_classes come from the data
  int ways = 2;                // hybrid: ranks per stage
  int chunks = 0;              // pipe/hybrid: chunks per way; 0 = take them from the part count
  // epochs, optimizer, seed, threads, device, memory limit, link; 100 epochs at lr 0.01 by default
  RunOptions run = [] {
    RunOptions r;
    r.epochs = 100;
    r.lr = 0.01;
    return r;
  }();
  CheckpointOptions checkpoint;  // one sub-directory per rank (rank-<r>)
  OutputOptions output;
  // GNNPipe's convergence aids (pipe and hybrid):
  bool shuffle_chunks = true;  // a new chunk order every epoch (seed shared by all ranks)
  int history_window = 1;      // historical buffers refreshed every N epochs, held in between
  // Gradients of reads from other chunks that reach their chunk after its backward:
  //   unbiased  dropped, and those in time scaled by 2 (GNNPipe's unbiased estimate)
  //   stale     each chunk adds every other chunk's latest contribution: this epoch's where it
  //             came in time, else last epoch's (PipeGCN-style stale gradients, each counted once)
  //   drop      dropped, those in time used as they are
  CrossGrad cross_grad = CrossGrad::kUnbiased;
  bool stale_halo = false;  // graph mode: PipeGCN-style one-epoch-stale halo, overlapped
};

}  // namespace loom::train
