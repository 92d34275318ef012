// CommStats arithmetic and JSON, and the thread-safe Counters behind it.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "loom/comm/stats.hpp"

namespace loom::comm {
namespace {

TEST(Channel, EveryChannelHasADistinctName) {
  std::vector<std::string> names;
  for (Channel c : kAllChannels) names.emplace_back(channel_name(c));
  EXPECT_EQ(names, (std::vector<std::string>{"features", "gradients", "activations", "embeddings", "control", "halo",
                                             "weights", "partition", "device"}));
}

TEST(CommStats, TheTotalCountsTrafficBetweenRanksNotCopiesToTheDevice) {
  CommStats s;
  s[Channel::features].bytes_sent = 100;
  s[Channel::device].bytes_sent = 1000;
  s[Channel::device].bytes_received = 10;
  EXPECT_EQ(s.total().bytes_sent, 100u);
  EXPECT_EQ(s.total().bytes_received, 0u);
  EXPECT_EQ(s.to_json()["device"]["bytes_sent"], 1000);
}

TEST(CommStats, DifferenceIsTheTrafficInBetween) {
  CommStats before;
  before[Channel::features] = {100, 50, 2, 1, 0.5};
  CommStats after = before;
  after[Channel::features].bytes_sent += 40;
  after[Channel::features].messages_sent += 1;
  after[Channel::gradients].bytes_received += 8;
  const CommStats delta = after - before;
  EXPECT_EQ(delta[Channel::features].bytes_sent, 40u);
  EXPECT_EQ(delta[Channel::features].bytes_received, 0u);
  EXPECT_EQ(delta[Channel::features].messages_sent, 1u);
  EXPECT_EQ(delta[Channel::gradients].bytes_received, 8u);
  EXPECT_EQ(delta + before, after);
  EXPECT_EQ(after.total().bytes_sent, 140u);
  after.reset();
  EXPECT_EQ(after, CommStats{});
}

TEST(CommStats, JsonHasEveryChannelAndTheTotal) {
  CommStats s;
  s[Channel::halo] = {7, 9, 1, 2, 0.25};
  s[Channel::control].bytes_sent = 3;
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j.size(), kNumChannels + 1);
  EXPECT_EQ(j["halo"]["bytes_sent"], 7);
  EXPECT_EQ(j["halo"]["messages_received"], 2);
  EXPECT_DOUBLE_EQ(j["halo"]["link_seconds"].get<double>(), 0.25);
  EXPECT_EQ(j["total"]["bytes_sent"], 10);
  EXPECT_EQ(j["weights"]["bytes_sent"], 0);
}

TEST(Counters, ConcurrentAddsAreAllCounted) {
  Counters counters;
  auto work = [&] {
    for (int i = 0; i < 10000; ++i) {
      counters.add_sent(Channel::features, 3, 1);
      counters.add_received(Channel::gradients, 5, 2);
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  counters.add_link_seconds(Channel::features, 0.5);
  const CommStats s = counters.snapshot();
  EXPECT_EQ(s[Channel::features].bytes_sent, 60000u);
  EXPECT_EQ(s[Channel::features].messages_sent, 20000u);
  EXPECT_EQ(s[Channel::gradients].bytes_received, 100000u);
  EXPECT_EQ(s[Channel::gradients].messages_received, 40000u);
  EXPECT_DOUBLE_EQ(s[Channel::features].link_seconds, 0.5);
  counters.reset();
  EXPECT_EQ(counters.snapshot(), CommStats{});
}

TEST(GlobalCommStats, JsonListsPerRankOnlyWhenPresent) {
  GlobalCommStats g;
  g.sum[Channel::features].bytes_sent = 10;
  EXPECT_FALSE(g.to_json().contains("per_rank"));
  g.per_rank.resize(2);
  EXPECT_EQ(g.to_json()["per_rank"].size(), 2u);
  EXPECT_EQ(g.to_json()["sum"]["features"]["bytes_sent"], 10);
}

}  // namespace
}  // namespace loom::comm
