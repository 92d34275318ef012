#include "loom/comm/channel.hpp"

namespace loom::comm {

std::string_view channel_name(Channel channel) {
  switch (channel) {
    case Channel::features: return "features";
    case Channel::gradients: return "gradients";
    case Channel::activations: return "activations";
    case Channel::embeddings: return "embeddings";
    case Channel::control: return "control";
    case Channel::halo: return "halo";
    case Channel::weights: return "weights";
    case Channel::partition: return "partition";
    case Channel::device: return "device";
  }
  return "unknown";
}

}  // namespace loom::comm
