// Link emulation arithmetic (with a fake clock) and the --net-bandwidth / --net-latency parsers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loom/comm/link_model.hpp"
#include "loom/core/error.hpp"

namespace loom::comm {
namespace {

// Time moves only when emulate() sleeps (or a test advances it).
class FakeClock final : public Clock {
 public:
  double now() override { return t; }
  void sleep_until(double seconds) override {
    sleeps.push_back(seconds);
    if (seconds > t) t = seconds;
  }
  double t = 100.0;
  std::vector<double> sleeps;
};

TEST(LinkModel, OffByDefaultCostsNothing) {
  LinkModel model;
  EXPECT_FALSE(model.enabled());
  EXPECT_EQ(model.seconds({3, 1000, 3, 1000}), 0.0);
  FakeClock clock;
  EXPECT_EQ(emulate(model, clock, clock.now(), {1, 1 << 20, 0, 0}), 0.0);
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(LinkModel, EachMessagePaysLatencyAndBytesShareTheLink) {
  LinkModel model{/*bandwidth=*/1e9, /*latency=*/20e-6, /*host_bandwidth=*/0, /*host_latency=*/0};
  // One 1 MB message: 20 us + 1 ms.
  EXPECT_DOUBLE_EQ(model.seconds({1, 1'000'000, 0, 0}), 20e-6 + 1e-3);
  // Three messages of 1 MB out, one of 4 MB in: the slower direction decides.
  EXPECT_DOUBLE_EQ(model.seconds({3, 3'000'000, 1, 4'000'000}), 20e-6 + 4e-3);
  EXPECT_DOUBLE_EQ(model.seconds({3, 3'000'000, 1, 1'000'000}), 60e-6 + 3e-3);
  EXPECT_EQ(model.seconds({}), 0.0);
}

TEST(LinkModel, RingAllReduceTrafficGivesTheTextbookCost) {
  // P = 4, n = 4 MB: 2(P-1) messages and 2(P-1)/P n bytes each way.
  const double alpha = 10e-6, beta = 1.0 / 1.25e9, n = 4e6;
  LinkModel model{1.25e9, alpha, 0, 0};
  const Traffic ring{6, 6'000'000, 6, 6'000'000};
  EXPECT_NEAR(model.seconds(ring), 6 * alpha + 2.0 * 3 / 4 * n * beta, 1e-12);
}

TEST(LinkModel, LatencyOnlyAndBandwidthOnly) {
  EXPECT_DOUBLE_EQ((LinkModel{0, 1e-3, 0, 0}).seconds({2, 1'000'000'000, 0, 0}), 2e-3);
  EXPECT_DOUBLE_EQ((LinkModel{1e6, 0, 0, 0}).seconds({5, 500'000, 0, 0}), 0.5);
}

TEST(LinkModel, HostCostAddsBothDirectionsOnTopOfTheWire) {
  // 1 MB out in 2 messages, 3 MB in 1: the wire takes the slower direction, the host both.
  const Traffic traffic{2, 1'000'000, 1, 3'000'000};
  const LinkModel wire{1e9, 1e-5, 0, 0}, host_only{0, 0, 2e9, 0}, both{1e9, 1e-5, 2e9, 0};
  EXPECT_DOUBLE_EQ(wire.seconds(traffic), 1e-5 + 3e-3);
  EXPECT_TRUE(host_only.enabled());
  EXPECT_DOUBLE_EQ(host_only.seconds(traffic), 4e6 / 2e9);
  EXPECT_DOUBLE_EQ(both.seconds(traffic), 1e-5 + 3e-3 + 2e-3);
  // Per message too, each of the 3 sent or received.
  EXPECT_DOUBLE_EQ((LinkModel{0, 0, 0, 1e-3}).seconds(traffic), 3e-3);
  EXPECT_DOUBLE_EQ(parse_link_model("", "", "", "2ms").host_latency, 2e-3);
  EXPECT_DOUBLE_EQ(parse_link_model("", "", "2GB/s").host_bandwidth, 2e9);
  EXPECT_THROW(parse_link_model("", "", "fast"), Error);
}

TEST(LinkModel, EmulateSleepsUntilStartPlusModeledTime) {
  LinkModel model{1e6, 1e-3, 0, 0};  // 1 MB/s, 1 ms
  FakeClock clock;
  const double start = clock.now();
  const double waited = emulate(model, clock, start, {1, 10'000, 0, 0});  // 1 ms + 10 ms
  ASSERT_EQ(clock.sleeps.size(), 1u);
  EXPECT_DOUBLE_EQ(clock.sleeps[0], start + 0.011);
  EXPECT_NEAR(waited, 0.011, 1e-12);
}

TEST(LinkModel, EmulateSubtractsTimeTheTransferAlreadyTook) {
  LinkModel model{1e6, 0, 0, 0};
  FakeClock clock;
  const double start = clock.now();
  clock.t += 0.004;  // the real transfer took 4 ms of a modeled 10 ms
  EXPECT_NEAR(emulate(model, clock, start, {1, 10'000, 0, 0}), 0.006, 1e-12);
  EXPECT_DOUBLE_EQ(clock.t, start + 0.010);
  clock.t += 1.0;  // already slower than modeled: no sleep
  EXPECT_EQ(emulate(model, clock, clock.t - 2.0, {1, 10'000, 0, 0}), 0.0);
  EXPECT_EQ(clock.sleeps.size(), 1u);
}

TEST(LinkModel, EmulateSpendsTheHostCostBusyThenSleeps) {
  struct Recorder final : Clock {
    double now() override { return t; }
    void sleep_until(double seconds) override { calls.emplace_back("sleep", seconds), t = std::max(t, seconds); }
    void busy_until(double seconds) override { calls.emplace_back("busy", seconds), t = std::max(t, seconds); }
    double t = 0;
    std::vector<std::pair<std::string, double>> calls;
  } clock;
  // 10 ms on the wire, 2 ms of host per message for 2 messages.
  emulate(LinkModel{1e6, 0, 0, 2e-3}, clock, 0.0, {1, 10'000, 1, 0});
  ASSERT_EQ(clock.calls.size(), 2u);
  EXPECT_EQ(clock.calls[0].first, "busy");
  EXPECT_DOUBLE_EQ(clock.calls[0].second, 0.004);
  EXPECT_EQ(clock.calls[1].first, "sleep");
  EXPECT_DOUBLE_EQ(clock.calls[1].second, 0.014);
}

TEST(LinkModel, SystemClockSleepsAtLeastTheModeledTime) {
  auto clock = system_clock();
  const double start = clock->now();
  emulate(LinkModel{0, 0.02, 0, 0}, *clock, start, {1, 0, 0, 0});
  EXPECT_GE(clock->now() - start, 0.02);
}

TEST(ParseBandwidth, BitsBytesAndBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbit"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("10gbps"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800Mbit/s"), 1e8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.25GB"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.25GB/s"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100MiB/s"), 100.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1e9"), 1e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth(" 25 Gbit "), 25e9 / 8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("64kbit"), 8000.0);
}

TEST(ParseBandwidth, GarbageNamesTheArgument) {
  for (const char* bad : {"", "fast", "10Gbitz", "10 furlongs", "-1Gbit", "0", "0GB", "nan", "inf", "Gbit"}) {
    try {
      parse_bandwidth(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), "--net-bandwidth") << bad;
    }
  }
}

TEST(ParseDuration, Units) {
  EXPECT_DOUBLE_EQ(parse_duration("20us"), 20e-6);
  EXPECT_DOUBLE_EQ(parse_duration("20\xC2\xB5s"), 20e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1ms"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_duration("0.5s"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration("100ns"), 100e-9);
  EXPECT_DOUBLE_EQ(parse_duration("1.5MS"), 1.5e-3);
  EXPECT_EQ(parse_duration("0"), 0.0);
}

TEST(ParseDuration, GarbageNamesTheArgument) {
  for (const char* bad : {"", "20", "soon", "20 parsecs", "-1ms", "1h", "ms"}) {
    try {
      parse_duration(bad, "--latency");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), "--latency") << bad;
    }
  }
}

TEST(ParseLinkModel, EmptyStringsLeaveEmulationOff) {
  EXPECT_FALSE(parse_link_model("", "").enabled());
  const LinkModel model = parse_link_model("10Gbit", "20us");
  EXPECT_DOUBLE_EQ(model.bandwidth, 1.25e9);
  EXPECT_DOUBLE_EQ(model.latency, 20e-6);
  EXPECT_DOUBLE_EQ(parse_link_model("", "1ms").bandwidth, 0.0);
  EXPECT_THROW(parse_link_model("10Gbit", "x"), Error);
}

}  // namespace
}  // namespace loom::comm
