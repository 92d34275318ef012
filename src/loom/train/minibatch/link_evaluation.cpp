#include "loom/train/minibatch/link_evaluation.hpp"

#include <torch/torch.h>

#include "loom/nn/device.hpp"

namespace loom::train {

PairScores score_pairs(nn::GnnModel& model, nn::LinkDecoder& decoder, const loader::BatchBuilder& builder,
                       const loader::LinkPairs& pairs, std::int64_t batch_size, std::uint64_t seed,
                       const comm::Communicator& comm) {
  const std::int64_t steps = comm.allreduce_max(loader::link_steps(static_cast<std::int64_t>(pairs.size()), batch_size),
                                                comm::Channel::control);
  const loader::LinkEpochPlan plan = loader::eval_link_batches(pairs, batch_size, steps, seed);
  const bool was_training = model.is_training();
  model.eval();
  decoder->eval();
  torch::NoGradGuard no_grad;
  PairScores scores;
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const loader::PreparedBatch batch = builder.build(plan.steps[s].seeds, plan.steps[s].sample_seed);
    const loader::LinkTargets& t = plan.targets[s];
    if (t.label.empty()) continue;
    const torch::Tensor z = model.forward(batch.x, batch.graphs);
    const torch::Tensor logits =
        decoder->forward(z, nn::vector_on(t.src_row, z.device()), nn::vector_on(t.dst_row, z.device()))
            .to(torch::kCPU, torch::kFloat32)
            .contiguous();
    const float* out = logits.data_ptr<float>();
    for (std::size_t i = 0; i < t.label.size(); ++i)
      (t.label[i] > 0.5F ? scores.positive : scores.negative).push_back(out[i]);
  }
  model.train(was_training);
  decoder->train(was_training);
  return scores;
}

}  // namespace loom::train
