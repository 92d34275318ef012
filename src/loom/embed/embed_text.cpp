#include "loom/embed/embed_text.hpp"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "loom/core/error.hpp"
#include "loom/core/stop_signal.hpp"
#include "loom/core/timer.hpp"

namespace loom::embed {

EmbedTextResult run_embed_text(const EmbedTextOptions& options) {
  check(options.sgns);
  LOOM_CHECK_ARG(!options.output.empty(), "-o", "an output path is required");
  const auto parent = std::filesystem::absolute(options.output).parent_path();
  LOOM_CHECK_ARG(std::filesystem::is_directory(parent), "-o", "directory '{}' does not exist", parent.string());
  check(options.checkpoints);
  core::install_stop_handlers();
  Embeddings embeddings;
  EmbedTextResult result = train_text_embeddings(options, embeddings);
  if (result.train.stopped_by != 0) return result;
  core::Timer timer;
  if (options.sync.comm == nullptr || options.sync.comm->rank() == 0)
    write_embeddings(options.output, options.format, embeddings);
  result.write_seconds = timer.seconds();
  return result;
}

EmbedTextResult train_text_embeddings(const EmbedTextOptions& options, Embeddings& embeddings) {
  check(options.sgns);
  EmbedTextResult result;
  core::Timer timer;
  const EncodedCorpus encoded = read_text_corpus(options.corpus, options.text);
  result.read_seconds = timer.seconds();
  result.vocab_size = encoded.vocab.size();
  result.tokens = encoded.corpus.num_tokens();
  result.sentences = encoded.corpus.num_sentences();
  spdlog::info("corpus {}: {} tokens in {} sentences, vocabulary {} (min-count {}), read in {:.2f}s", options.corpus,
               result.tokens, result.sentences, result.vocab_size, options.text.min_count, result.read_seconds);

  SgnsModel model = init_sgns_model(encoded.vocab.size(), options.sgns);
  result.train = train_sgns_checkpointed(encoded.corpus, encoded.vocab.counts(), options.sgns, options.sync,
                                         options.checkpoints, model, &result.sync);
  spdlog::info("trained {} ({} kernel, {} threads): {:.2f}s, {:.0f} words/s, loss {:.4f}",
               options.sgns.cbow ? "cbow" : "skip-gram", sgns_kernel_name(options.sgns.kernel), options.sgns.threads,
               result.train.seconds, result.train.words_per_second, result.train.loss);

  embeddings = to_embeddings(encoded.vocab, model.input);
  return result;
}

}  // namespace loom::embed
