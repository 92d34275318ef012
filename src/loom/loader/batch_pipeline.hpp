// BatchPipeline: SALIENT-style overlap of data preparation with training. A producer thread
// samples the next batches and fetches their remote features while the caller trains on the
// current one; at most `depth` prepared batches wait in a bounded queue. depth 0 prepares each
// batch synchronously inside next() (the DistDGL-style baseline). The builder's fetcher must use
// a Communicator that no other thread uses (Communicator::dup()). An exception in the producer is
// rethrown by next(). With a PrefetchControl, every prepared batch's fetch statistics go to it
// (on the thread that prepared the batch), so prefetch decisions stay off the training path.
// With `lookahead` K > 0 batches are sampled K ahead of their fetch, and each fetch tells the
// prefetch buffer the ids of the K batches sampled after it. `first_step` > 0 starts at that step of
// the epoch's plan (a run resumed mid-epoch), numbering and progress as in the whole plan.
// Stopping before the end (stop_early(), then destruction): every rank's producer fetches the
// same batches, so that the collective fetches of all ranks pair up, and none is left waiting.
// With `sample_workers` W > 1, W threads sample the next batches at once ahead of the fetches,
// which stay in plan order on the producer; each sampler is one thread (one batch per thread: no
// team, no shared scratch), and the producer computes on the cores left beside the W samplers and
// the training thread. A sample does not depend on the thread that draws it, so the batches are the
// same at any W.
// With `superbatch` S > 1 the batches are fetched S at a time (BatchBuilder::fetch_group, one
// collective gather of their distinct rows, one sweep of a mapped feature file for S steps): groups
// start at first_step and every S steps after it on every rank, so their gathers pair up.
#pragma once

#include <atomic>
#include <deque>
#include <exception>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "loom/core/thread_pool.hpp"
#include "loom/sample/epoch_plan.hpp"
#include "loom/loader/batch_builder.hpp"
#include "loom/loader/prefetch_control.hpp"

namespace loom::loader {

using sample::StepPlan;

class BatchPipeline {
 public:
  BatchPipeline(const BatchBuilder& builder, std::vector<StepPlan> plan, int depth, PrefetchControl* control = nullptr,
                int lookahead = 0, std::size_t first_step = 0, int sample_workers = 1, int superbatch = 1);
  ~BatchPipeline();
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;

  // The next batch in plan order; false after the last. wait_seconds = time blocked here.
  bool next(PreparedBatch& out, double& wait_seconds);
  // The caller takes no more batches (every rank at the same step): the producer prepares only
  // those it may already have begun on some rank (up to `depth` + 1 past the last taken).
  void stop_early();

 private:
  void produce();
  PreparedBatch prepare(std::size_t index);
  // Starts sampling until `ahead` + 1 batches are sampled and not fetched (or the plan ends).
  void sample_ahead(std::size_t ahead);
  // The next batch of the current superbatch, fetching the group first at its first step.
  PreparedBatch prepare_grouped(std::size_t index);
  const BatchBuilder* builder_;
  std::vector<StepPlan> plan_;
  int depth_;
  PrefetchControl* control_;
  std::size_t lookahead_;
  // Sampling or sampled, not yet fetched, in plan order.
  std::deque<std::shared_future<std::shared_ptr<PreparedBatch>>> sampled_;
  std::size_t superbatch_;
  std::deque<PreparedBatch> grouped_;  // fetched with their group, not yet prepared
  std::size_t first_step_;
  std::size_t next_sample_;
  std::size_t next_sync_;           // the caller's next step without a producer
  std::size_t taken_;               // steps the caller took
  std::atomic<std::size_t> limit_;  // the producer prepares the steps below this
  std::atomic<bool> stopping_{false};
  core::BoundedQueue<PreparedBatch> queue_;
  std::exception_ptr error_;
  int producer_threads_ = 0;                    // the producer's OpenMP threads, with samplers_
  std::unique_ptr<core::ThreadPool> samplers_;  // with sample_workers > 1; drained before the above go
  std::thread producer_;
};

}  // namespace loom::loader
