#include "loom/train/fullgraph/fullgraph_epoch.hpp"

#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"

namespace loom::train {

namespace {

std::uint64_t channel_bytes(const comm::GlobalCommStats& s, comm::Channel c) { return s.sum[c].bytes_sent; }

}  // namespace

nlohmann::json FullGraphEpoch::to_json(scores::ScoreKind scoring) const {
  const std::string score = scores::score_name(scoring);
  nlohmann::json j = {{"epoch", epoch},
                      {"epoch_seconds", seconds},
                      {"lr", lr},
                      {"loss", loss},
                      {"grad_norm", grad_norm},
                      {"bubble_seconds", bubble_seconds},
                      {"exchange_seconds", exchange_seconds},
                      {"bytes",
                       {{"activations", channel_bytes(traffic, comm::Channel::activations)},
                        {"gradients", channel_bytes(traffic, comm::Channel::gradients)},
                        {"halo", channel_bytes(traffic, comm::Channel::halo)},
                        {"weights", channel_bytes(traffic, comm::Channel::weights)},
                        {"total", traffic.sum.total().bytes_sent}}},
                      {"comm", traffic.to_json()},
                      {"train_" + score, train_score}};
  if (evaluated) {
    j["eval_bytes"] = eval_bytes;
    j["eval_train_" + score] = eval_train_score;
    j["valid_" + score] = valid_score;
    j["test_" + score] = test_score;
    j["eval_seconds"] = eval_seconds;
  }
  return j;
}

void FullGraphEpoch::log() const {
  const auto bytes = [&](comm::Channel c) { return core::human_bytes(static_cast<double>(channel_bytes(traffic, c))); };
  const auto evaluated_score = [&](double s) { return evaluated ? fmt::format("{:.4f}", s) : std::string("-"); };
  spdlog::info(
      "epoch {:>3} | {:.2f}s (bubble {:.2f}, exchange {:.2f}) | loss {:.4f} | train {:.4f} | valid {} | "
      "test {} | {} (act {}, grad {}, halo {}, weights {})",
      epoch, seconds, bubble_seconds, exchange_seconds, loss, train_score, evaluated_score(valid_score),
      evaluated_score(test_score), core::human_bytes(static_cast<double>(traffic.sum.total().bytes_sent)),
      bytes(comm::Channel::activations), bytes(comm::Channel::gradients), bytes(comm::Channel::halo),
      bytes(comm::Channel::weights));
}

}  // namespace loom::train
