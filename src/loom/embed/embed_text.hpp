// Library entry point of `loom embed text`: read and encode a text corpus, train SGNS on it, write
// the input vectors in the chosen format. Options are validated (naming the CLI option) before the
// corpus is read; the output appears whole or not at all. run_embed_text() stops at the next step
// boundary on SIGTERM / SIGINT (sgns_checkpoint.hpp), writing no output (result.train.stopped_by).
#pragma once

#include <cstdint>
#include <string>

#include "loom/embed/embeddings_io.hpp"
#include "loom/embed/sgns.hpp"
#include "loom/embed/sgns_checkpoint.hpp"
#include "loom/embed/synced_sgns.hpp"
#include "loom/embed/text_corpus.hpp"

namespace loom::embed {

struct EmbedTextOptions {
  std::string corpus;  // text file, gzip or plain
  std::string output;
  EmbeddingFormat format = EmbeddingFormat::kText;
  TextCorpusOptions text;
  SgnsOptions sgns;
  SyncOptions sync;  // with K > 1 ranks: each trains on its share; rank 0 writes the output
  SgnsCheckpoints checkpoints;
};

struct EmbedTextResult {
  std::int64_t vocab_size = 0;
  std::int64_t tokens = 0;  // corpus tokens kept after min-count
  std::int64_t sentences = 0;
  double read_seconds = 0;  // reading + encoding the corpus
  double write_seconds = 0;
  SgnsStats train;
  SyncStats sync;
};

EmbedTextResult run_embed_text(const EmbedTextOptions& options);

// The same without a file: reads the corpus, trains, and returns the vectors with their words
// (options.output and options.format are not used). It installs no signal handlers.
EmbedTextResult train_text_embeddings(const EmbedTextOptions& options, Embeddings& embeddings);

}  // namespace loom::embed
