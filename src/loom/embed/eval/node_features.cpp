#include "loom/embed/eval/node_features.hpp"

#include "loom/core/error.hpp"
#include "loom/embed/eval/graph_embedding.hpp"

namespace loom::embed::eval {

FeatureAttachment attach_embedding_features(graph::GraphData& data, const Embeddings& embeddings,
                                            const std::string& source) {
  Alignment aligned = align_to_keys(embeddings, node_keys(data));
  if (aligned.matched == 0)
    throw Error::in_file(
        source, 0,
        fmt::format("none of its {} vectors names a node of the graph (keys are original node ids or names)",
                    embeddings.size()));
  data.feat = std::move(aligned.vectors.data);
  data.feat_dim = embeddings.dim;
  data.feat_source = source;
  data.provenance["features"] = {
      {"source", source}, {"matched", aligned.matched}, {"unknown_keys", aligned.unknown_keys}};
  return {aligned.matched, aligned.unknown_keys};
}

}  // namespace loom::embed::eval
