#include "loom/train/training_outputs.hpp"

#include "loom/core/fs.hpp"
#include "loom/core/npy.hpp"

namespace loom::train {

namespace {

template <class T>
std::vector<T> gather_concat(std::span<const T> local, const comm::Communicator& comm) {
  const auto parts = comm.gatherv(local, comm::Channel::control);
  std::vector<T> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

}  // namespace

void write_training_outputs(const MinibatchOptions& options, const TrainingData& data, const ExactInference& exact,
                            const comm::Communicator& comm) {
  const std::int64_t n = data.num_local;
  std::vector<std::int64_t> predicted;
  std::vector<std::uint8_t> predicted_multi;
  if (data.multi_label) {
    const auto p = exact.logits.gt(0).to(torch::kUInt8).contiguous();
    predicted_multi.assign(p.data_ptr<std::uint8_t>(), p.data_ptr<std::uint8_t>() + p.numel());
  } else {
    const auto p = exact.logits.argmax(1).contiguous();
    predicted.assign(p.data_ptr<std::int64_t>(), p.data_ptr<std::int64_t>() + n);
  }
  const auto all_predicted = gather_concat<std::int64_t>(predicted, comm);
  const auto all_multi = gather_concat<std::uint8_t>(predicted_multi, comm);
  const auto all_ids = gather_concat<std::int64_t>(data.original_ids, comm);
  std::string names;
  for (const auto& s : data.original_names) names += s + "\n";
  std::vector<char> name_bytes(names.begin(), names.end());
  const auto all_names = gather_concat<char>(name_bytes, comm);
  std::vector<float> all_embeddings;
  std::int64_t width = 0;
  if (options.save_embeddings && exact.embeddings.defined()) {
    width = exact.embeddings.size(1);
    const auto e = exact.embeddings.contiguous();
    all_embeddings = gather_concat<float>(std::span<const float>(e.data_ptr<float>(), e.numel()), comm);
  }
  comm.agree_on([&] {
    if (comm.rank() != 0) return;
    const std::int64_t total = data.num_nodes();
    core::OutputDir out(options.output_dir, options.overwrite, "--output");
    if (data.multi_label)
      core::write_npy(out.file("predictions.npy"), all_multi, {total, data.num_classes});
    else
      core::write_npy(out.file("predictions.npy"), all_predicted);
    if (!all_names.empty())
      core::write_text_file(out.file("node_names.txt"), std::string(all_names.begin(), all_names.end()));
    else
      core::write_npy(out.file("node_ids.npy"), all_ids);
    if (!all_embeddings.empty()) core::write_npy(out.file("embeddings.npy"), all_embeddings, {total, width});
    out.commit();
  });
}

}  // namespace loom::train
