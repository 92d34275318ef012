#include "loom/train/training_outputs.hpp"

#include <vector>

#include <torch/torch.h>

#include "loom/format/checkpoint_dir.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/format/npy.hpp"

namespace loom::train {

namespace {

template <class T>
std::vector<T> gather_concat(std::span<const T> local, const comm::Communicator& comm) {
  const auto parts = comm.gatherv(local, comm::Channel::control);
  std::vector<T> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

template <class T>
std::vector<T> values_of(const torch::Tensor& t) {
  if (!t.defined()) return {};
  const auto host = t.to(torch::kCPU).contiguous();
  return std::vector<T>(host.data_ptr<T>(), host.data_ptr<T>() + host.numel());
}

}  // namespace

void check_output_options(const TrainingOutputs& outputs, bool writer) {
  const OutputOptions& output = outputs.output;
  const CheckpointOptions& checkpoint = outputs.checkpoint;
  LOOM_CHECK_ARG(!output.save_embeddings || !output.dir.empty(), "--save-embeddings",
                 "needs --output DIR to write them to");
  for (const auto& [path, argument] : {std::pair{output.dir, "--output"},
                                       {output.metrics_path, "--metrics"},
                                       {checkpoint.dir, "--checkpoint-dir"},
                                       {outputs.decision_log, "--decision-log"}})
    if (!path.empty()) core::check_output_apart(path, outputs.store, argument);
  if (!outputs.decision_log.empty())
    core::check_output_target(outputs.decision_log, output.overwrite, "--decision-log");
  if (!writer) return;
  if (!output.dir.empty()) core::check_output_target(output.dir, output.overwrite, "--output");
  if (!output.metrics_path.empty())
    core::check_output_target(output.metrics_path, output.overwrite || checkpoint.resume, "--metrics");
  format::check_checkpoint_target(checkpoint.dir, checkpoint.resume, output.overwrite);
}

void write_training_outputs(const std::string& dir, bool overwrite, const NodeOutputs& rows,
                            const comm::Communicator& comm) {
  const bool has_rows = rows.logits.defined();
  const auto predicted = values_of<std::int64_t>(
      has_rows && rows.scoring == scores::ScoreKind::kAccuracy ? rows.logits.argmax(1) : torch::Tensor());
  const auto predicted_multi = values_of<std::uint8_t>(
      has_rows && rows.scoring == scores::ScoreKind::kMicroF1 ? rows.logits.gt(0).to(torch::kUInt8) : torch::Tensor());
  const auto all_predicted = gather_concat<std::int64_t>(predicted, comm);
  const auto all_multi = gather_concat<std::uint8_t>(predicted_multi, comm);
  const auto all_ids = gather_concat<std::int64_t>(rows.original_ids, comm);
  std::string names;
  for (const auto& s : rows.original_names) names += s + "\n";
  const auto all_names = gather_concat<char>(std::vector<char>(names.begin(), names.end()), comm);
  const bool with_embeddings =
      comm.allreduce_max(static_cast<int>(rows.embeddings.defined()), comm::Channel::control) > 0;
  std::vector<float> all_embeddings;
  std::int64_t width = 0;
  if (with_embeddings) {
    width = rows.embeddings.defined() ? rows.embeddings.size(1) : 0;
    width = comm.allreduce_max(width, comm::Channel::control);
    all_embeddings = gather_concat<float>(values_of<float>(rows.embeddings), comm);
  }
  comm.agree_on([&] {
    if (comm.rank() != 0) return;
    core::OutputDir out(dir, overwrite, "--output");
    if (rows.scoring == scores::ScoreKind::kMicroF1)
      format::write_npy(out.file("predictions.npy"), all_multi, {rows.num_nodes, rows.num_classes});
    else
      format::write_npy(out.file("predictions.npy"), all_predicted);
    if (!all_names.empty())
      core::write_text_file(out.file("node_names.txt"), std::string(all_names.begin(), all_names.end()));
    else
      format::write_npy(out.file("node_ids.npy"), all_ids);
    if (with_embeddings) format::write_npy(out.file("embeddings.npy"), all_embeddings, {rows.num_nodes, width});
    out.commit();
  });
}

}  // namespace loom::train
