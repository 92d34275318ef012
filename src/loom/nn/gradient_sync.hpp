// Data-parallel gradient averaging: after backward(), every rank's parameter gradients are
// packed into flat float32 buckets (at most `bucket_bytes` each), summed by one all-reduce per
// bucket on `channel` (default comm::Channel::gradients), divided by the number of ranks unless
// `average` is false (full-graph training sums partial gradients of one loss), and unpacked. A
// world of one rank does nothing. Parameters without a gradient contribute zeros. Gradients on
// a device travel through host memory. all_reduce_agreeing() also carries each rank's stop signal
// (core::stop_signal()) and whether its loss was finite in the last bucket, so that every rank
// learns in the same step, without a message of its own, that some rank was asked to stop or
// trained on a loss that is not finite. gradients_finite() then tells the same on every rank.
#pragma once

#include <span>
#include <vector>

#include <torch/torch.h>

#include "loom/comm/communicator.hpp"

namespace loom::nn {

// What every rank learns of all the ranks' step.
struct StepAgreement {
  int stop_signal = 0;            // SIGTERM when some rank's is SIGTERM, else SIGINT when some rank's is, else 0
  int ranks_loss_not_finite = 0;  // ranks whose loss was NaN or infinite
};

// The elements of each bucket one all-reduce of parameters with these sizes sums (in order, whole
// parameters up to `bucket_bytes`, a larger one alone; the last bucket carries `flags` more), as
// GradientSync's all-reduces do: what `loom plan` counts gradients traffic by.
std::vector<std::size_t> gradient_buckets(const std::vector<std::int64_t>& parameter_sizes, std::size_t bucket_bytes,
                                          std::size_t flags);
inline constexpr std::size_t kGradientBucketBytes = 8u << 20;
inline constexpr std::size_t kAgreementFlags = 3;  // all_reduce_agreeing's: SIGTERM, SIGINT, loss not finite

class GradientSync {
 public:
  GradientSync(const comm::Communicator& comm, std::vector<torch::Tensor> parameters,
               comm::Channel channel = comm::Channel::gradients, bool average = true,
               std::size_t bucket_bytes = kGradientBucketBytes);
  void all_reduce();
  // As all_reduce(), agreeing on this rank's stop signal and whether its loss was finite.
  StepAgreement all_reduce_agreeing(int stop_signal, bool loss_finite);
  // Whether every gradient (the summed ones, after an all-reduce) is finite.
  bool gradients_finite() const;
  // The same as a float64 tensor [1] (1 or 0) on the parameters' device, not read: a trainer on a
  // GPU reads it with the step's other values in one copy to the host.
  torch::Tensor finite_flag() const;
  // gradients_finite() after the all-reduce, given finite_flag()'s value read before it: with
  // one rank the gradients did not change, so the value is kept and not read again.
  bool summed_gradients_finite(bool finite_before) const {
    return comm_->size() == 1 ? finite_before : gradients_finite();
  }

 private:
  const comm::Communicator* comm_;
  std::vector<torch::Tensor> parameters_;
  comm::Channel channel_;
  bool average_;
  std::size_t bucket_elements_;
  std::vector<float> buffer_;
  // Sums the gradients; `flags` ride at the end of the last bucket and are summed too.
  void sum_buckets(std::span<float> flags);
};

}  // namespace loom::nn
