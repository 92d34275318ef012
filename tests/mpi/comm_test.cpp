// comm::Communicator across ranks (ctest runs this under mpirun -np 2 and -np 4): data arrives
// intact, counters equal the payload that crossed ranks, link emulation slows transfers by at
// least the modeled time, dup()ed communicators work from two threads, agree() fails together,
// wait_idle() sleeps instead of spinning.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "loom/comm/communicator.hpp"
#include "loom/comm/mpi_session.hpp"

namespace loom::comm {
namespace {

// Times the calling thread gave up its core (blocked or slept) so far.
long voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

// Uneven sizes, some zero: what rank `from` sends to rank `to`.
std::size_t pair_size(int from, int to) { return static_cast<std::size_t>((from * 7 + to * 3 + 1) % 5) * 3; }
std::int64_t pair_value(int from, int to, std::size_t i) {
  return from * 1'000'000 + to * 1000 + static_cast<std::int64_t>(i);
}

// Restores the world's link model, clock and message size limit after a test changes them.
class WorldSettings {
 public:
  explicit WorldSettings(Communicator& comm) : comm_(comm) {}
  ~WorldSettings() {
    comm_.set_link_model(LinkModel{});
    comm_.set_clock(system_clock());
    comm_.set_max_message_bytes(std::size_t{1} << 30);
  }

 private:
  Communicator& comm_;
};

class FakeClock final : public Clock {
 public:
  double now() override { return t; }
  void sleep_until(double seconds) override {
    sleeps.push_back(seconds);
    if (seconds > t) t = seconds;
  }
  double t = 0;
  std::vector<double> sleeps;
};

TEST(Comm, AlltoallvUnevenAndEmptyBuffersArriveAndAreCountedExactly) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p_count = comm.size();
  std::vector<std::vector<std::int64_t>> send(p_count);
  std::uint64_t bytes_out = 0, bytes_in = 0, msgs_out = 0, msgs_in = 0;
  for (int p = 0; p < p_count; ++p) {
    for (std::size_t i = 0; i < pair_size(r, p); ++i) send[p].push_back(pair_value(r, p, i));
    if (p == r) continue;
    bytes_out += pair_size(r, p) * sizeof(std::int64_t);
    bytes_in += pair_size(p, r) * sizeof(std::int64_t);
    msgs_out += pair_size(r, p) > 0;
    msgs_in += pair_size(p, r) > 0;
  }
  const CommStats before = comm.stats();
  const auto recv = comm.alltoallv(send, Channel::features);
  const CommStats delta = comm.stats() - before;

  ASSERT_EQ(recv.size(), static_cast<std::size_t>(p_count));
  for (int p = 0; p < p_count; ++p) {
    ASSERT_EQ(recv[p].size(), pair_size(p, r)) << "from rank " << p;
    for (std::size_t i = 0; i < recv[p].size(); ++i) EXPECT_EQ(recv[p][i], pair_value(p, r, i));
  }
  EXPECT_EQ(delta[Channel::features].bytes_sent, bytes_out);
  EXPECT_EQ(delta[Channel::features].bytes_received, bytes_in);
  EXPECT_EQ(delta[Channel::features].messages_sent, msgs_out);
  EXPECT_EQ(delta[Channel::features].messages_received, msgs_in);
  EXPECT_EQ(delta.total().bytes_sent, bytes_out) << "only the named channel moves";
}

TEST(Comm, AlltoallvSplitsLargeBuffersButCountsOneMessage) {
  Communicator comm = Communicator::world();
  WorldSettings restore(comm);
  comm.set_max_message_bytes(1000);
  const int r = comm.rank(), p_count = comm.size();
  std::vector<std::vector<float>> send(p_count, std::vector<float>(2500));
  for (int p = 0; p < p_count; ++p)
    for (std::size_t i = 0; i < send[p].size(); ++i) send[p][i] = static_cast<float>(r * 10000 + p * 100 + i % 97);
  const CommStats before = comm.stats();
  const auto recv = comm.alltoallv(send, Channel::halo);
  const CommStats delta = comm.stats() - before;
  for (int p = 0; p < p_count; ++p) {
    ASSERT_EQ(recv[p].size(), 2500u);
    for (std::size_t i = 0; i < 2500; ++i) ASSERT_EQ(recv[p][i], static_cast<float>(p * 10000 + r * 100 + i % 97));
  }
  EXPECT_EQ(delta[Channel::halo].messages_sent, static_cast<std::uint64_t>(p_count - 1));
  EXPECT_EQ(delta[Channel::halo].bytes_received, static_cast<std::uint64_t>(p_count - 1) * 10000);
}

TEST(Comm, AllreduceSumsAndCountsARingAllReduce) {
  Communicator comm = Communicator::world();
  const int r = comm.rank();
  const std::uint64_t p = static_cast<std::uint64_t>(comm.size());
  std::vector<float> grads(1000);
  for (std::size_t i = 0; i < grads.size(); ++i) grads[i] = static_cast<float>(r + 1) * static_cast<float>(i);
  const CommStats before = comm.stats();
  comm.allreduce_sum(grads, Channel::gradients);
  const CommStats delta = comm.stats() - before;
  const float ranks_sum = static_cast<float>(p * (p + 1) / 2);
  for (std::size_t i = 0; i < grads.size(); ++i) ASSERT_FLOAT_EQ(grads[i], ranks_sum * static_cast<float>(i));
  EXPECT_EQ(delta[Channel::gradients].bytes_sent, 2 * (p - 1) * 4000 / p);
  EXPECT_EQ(delta[Channel::gradients].bytes_received, 2 * (p - 1) * 4000 / p);
  EXPECT_EQ(delta[Channel::gradients].messages_sent, 2 * (p - 1));

  std::vector<double> d{static_cast<double>(r), -static_cast<double>(r)};
  comm.allreduce_max(std::span<double>(d), Channel::control);
  EXPECT_EQ(d, (std::vector<double>{static_cast<double>(p - 1), 0.0}));
  EXPECT_EQ(comm.allreduce_min(std::int64_t{r} + 5, Channel::control), 5);
  EXPECT_EQ(comm.allreduce_sum(std::uint64_t{1}, Channel::control), p);
}

TEST(Comm, BroadcastAllgatherAndGathervDeliverEveryRanksData) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p_count = comm.size();
  const int root = p_count - 1;
  std::vector<std::int32_t> weights;
  if (r == root) weights = {3, 1, 4, 1, 5};
  const CommStats before = comm.stats();
  comm.broadcast(weights, root, Channel::weights);
  const CommStats delta = comm.stats() - before;
  EXPECT_EQ(weights, (std::vector<std::int32_t>{3, 1, 4, 1, 5}));
  if (r == root) {
    EXPECT_EQ(delta[Channel::weights].bytes_sent, static_cast<std::uint64_t>(p_count - 1) * 20);
  } else {
    EXPECT_EQ(delta[Channel::weights].bytes_received, 20u);
  }

  std::string note = r == 0 ? "from rank 0" : "";
  comm.broadcast(note, 0, Channel::control);
  EXPECT_EQ(note, "from rank 0");

  const std::vector<int> ranks = comm.allgather(r * 2, Channel::control);
  ASSERT_EQ(ranks.size(), static_cast<std::size_t>(p_count));
  for (int p = 0; p < p_count; ++p) EXPECT_EQ(ranks[p], p * 2);

  const std::vector<std::int64_t> mine(static_cast<std::size_t>(r), r);  // rank 0 sends nothing
  const CommStats before_gather = comm.stats();
  const auto all = comm.allgatherv(std::span<const std::int64_t>(mine), Channel::embeddings);
  const auto at_root = comm.gatherv(std::span<const std::int64_t>(mine), Channel::embeddings, /*root=*/0);
  const CommStats gathered = comm.stats() - before_gather;
  for (int p = 0; p < p_count; ++p) EXPECT_EQ(all[p], std::vector<std::int64_t>(static_cast<std::size_t>(p), p));
  if (r == 0) {
    ASSERT_EQ(at_root.size(), static_cast<std::size_t>(p_count));
    for (int p = 0; p < p_count; ++p) EXPECT_EQ(at_root[p], all[p]);
  } else {
    EXPECT_TRUE(at_root.empty());
  }
  // allgatherv: r*8 bytes to each of P-1 peers; gatherv: r*8 bytes to the root (rank 0).
  const std::uint64_t mine_bytes = static_cast<std::uint64_t>(r) * 8;
  EXPECT_EQ(gathered[Channel::embeddings].bytes_sent,
            mine_bytes * static_cast<std::uint64_t>(p_count - 1) + (r == 0 ? 0 : mine_bytes));
}

TEST(Comm, PointToPointRingBlockingAndNonBlocking) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p_count = comm.size();
  const int next = (r + 1) % p_count, prev = (r - 1 + p_count) % p_count;
  const std::vector<double> out(100, r + 0.5);
  std::vector<double> in(100);
  const CommStats before = comm.stats();

  Request recv_req = comm.irecv(std::span<double>(in), prev, 1, Channel::activations);
  Request send_req = comm.isend(std::span<const double>(out), next, 1, Channel::activations);
  std::vector<Request> both;
  both.push_back(std::move(recv_req));
  both.push_back(std::move(send_req));
  wait_all(both);
  EXPECT_EQ(in, std::vector<double>(100, prev + 0.5));

  // Blocking ring of different sizes: even ranks send first, odd ranks receive first.
  const std::vector<std::int32_t> grads(static_cast<std::size_t>(r + 1), r);
  std::vector<std::int32_t> got;
  if (r % 2 == 0) {
    comm.send(std::span<const std::int32_t>(grads), next, 2, Channel::activations);
    got = comm.recv<std::int32_t>(prev, 2, Channel::activations);
  } else {
    got = comm.recv<std::int32_t>(prev, 2, Channel::activations);
    comm.send(std::span<const std::int32_t>(grads), next, 2, Channel::activations);
  }
  EXPECT_EQ(got, std::vector<std::int32_t>(static_cast<std::size_t>(prev + 1), prev));

  const CommStats delta = comm.stats() - before;
  EXPECT_EQ(delta[Channel::activations].messages_sent, 2u);
  EXPECT_EQ(delta[Channel::activations].messages_received, 2u);
  EXPECT_EQ(delta[Channel::activations].bytes_sent, 800u + static_cast<std::uint64_t>(r + 1) * 4);
  EXPECT_EQ(delta[Channel::activations].bytes_received, 800u + static_cast<std::uint64_t>(prev + 1) * 4);
}

TEST(Comm, DupedCommunicatorsWorkFromTwoThreadsAtOnceAndShareCounters) {
  Communicator comm = Communicator::world();
  Communicator fetch = comm.dup();
  Communicator grads = comm.dup();
  const int r = comm.rank(), p_count = comm.size();
  const CommStats before = comm.stats();
  constexpr int kRounds = 50;
  int fetch_errors = 0, grad_errors = 0;
  std::thread background([&] {
    for (int round = 0; round < kRounds; ++round) {
      std::vector<std::vector<std::int32_t>> send(p_count);
      for (int p = 0; p < p_count; ++p) send[p].assign(16, round * 100 + r);
      const auto recv = fetch.alltoallv(send, Channel::features);
      for (int p = 0; p < p_count; ++p) fetch_errors += recv[p] != std::vector<std::int32_t>(16, round * 100 + p);
    }
  });
  for (int round = 0; round < kRounds; ++round) {
    std::vector<double> g(64, 1.0 + round);
    grads.allreduce_sum(g, Channel::gradients);
    for (double x : g) grad_errors += x != (1.0 + round) * p_count;
  }
  background.join();
  EXPECT_EQ(fetch_errors, 0);
  EXPECT_EQ(grad_errors, 0);
  const CommStats delta = comm.stats() - before;  // dups count into the world's counters
  EXPECT_EQ(delta[Channel::features].bytes_sent, static_cast<std::uint64_t>(kRounds * (p_count - 1) * 64));
  EXPECT_EQ(delta[Channel::gradients].messages_sent, static_cast<std::uint64_t>(kRounds * 2 * (p_count - 1)));
}

// ctest starts every rank on this machine: all of them share it, and a split shares it only
// with the ranks of its own half.
TEST(Comm, RanksOnThisNodeCountsTheRanksSharingTheMachine) {
  auto world = Communicator::world();
  EXPECT_EQ(world.ranks_on_this_node(), world.size());
  const auto half = world.split(world.rank() % 2, world.rank());
  EXPECT_EQ(half.ranks_on_this_node(), half.size());
  EXPECT_LT(half.ranks_on_this_node(), world.size());
}

TEST(Comm, GlobalStatsSumsEveryRank) {
  Communicator comm = Communicator::world();
  CommStats local;
  local[Channel::control].bytes_sent = static_cast<std::uint64_t>(comm.rank()) + 1;
  local[Channel::control].link_seconds = 0.5;
  const GlobalCommStats global = comm.global_stats(local);
  const auto p = static_cast<std::uint64_t>(comm.size());
  EXPECT_EQ(global.sum[Channel::control].bytes_sent, p * (p + 1) / 2);
  EXPECT_EQ(global.max[Channel::control].bytes_sent, p);
  EXPECT_NEAR(global.sum[Channel::control].link_seconds, 0.5 * static_cast<double>(p), 1e-6);
  if (comm.rank() == 0) {
    ASSERT_EQ(global.per_rank.size(), p);
    EXPECT_EQ(global.per_rank[1][Channel::control].bytes_sent, 2u);
  } else {
    EXPECT_TRUE(global.per_rank.empty());
  }
}

TEST(Comm, LinkEmulationUsesTheModelOnTheCountedTraffic) {
  Communicator comm = Communicator::world();
  WorldSettings restore(comm);
  auto clock = std::make_shared<FakeClock>();
  comm.set_clock(clock);
  comm.set_link_model(LinkModel{/*bandwidth=*/1e6, /*latency=*/1e-3, /*host_bandwidth=*/0, /*host_latency=*/0});
  const int p_count = comm.size();
  std::vector<std::vector<float>> send(p_count, std::vector<float>(250));  // 1000 bytes per peer
  comm.alltoallv(send, Channel::features);
  // (P-1) messages of 1000 bytes each way: (P-1) * (1 ms + 1 ms).
  ASSERT_EQ(clock->sleeps.size(), 1u);
  EXPECT_NEAR(clock->sleeps[0], (p_count - 1) * 2e-3, 1e-12);
  const CommStats before = comm.stats();
  std::vector<float> g(500);
  comm.allreduce_sum(g, Channel::gradients);
  const double moved = static_cast<double>(2 * (p_count - 1) * 2000 / p_count);
  ASSERT_EQ(clock->sleeps.size(), 2u);
  EXPECT_NEAR(clock->sleeps[1] - clock->sleeps[0], 2 * (p_count - 1) * 1e-3 + moved / 1e6, 1e-12);
  EXPECT_NEAR((comm.stats() - before)[Channel::gradients].link_seconds, clock->sleeps[1] - clock->sleeps[0], 1e-6);
}

TEST(Comm, LinkEmulationAddsAtLeastTheModeledTime) {
  Communicator comm = Communicator::world();
  WorldSettings restore(comm);
  const LinkModel model{/*bandwidth=*/50e6, /*latency=*/2e-3, /*host_bandwidth=*/0, /*host_latency=*/0};
  comm.set_link_model(model);
  const int r = comm.rank(), p_count = comm.size();
  std::vector<std::vector<std::uint8_t>> send(p_count, std::vector<std::uint8_t>(100'000));
  comm.barrier();
  const double start = system_clock()->now();
  comm.alltoallv(send, Channel::features);
  const double elapsed = system_clock()->now() - start;
  const std::uint64_t peers = static_cast<std::uint64_t>(p_count - 1);
  const double modeled = model.seconds({peers, peers * 100'000, peers, peers * 100'000});
  EXPECT_GE(elapsed, modeled);

  // A point-to-point request completes no earlier than latency + bytes / bandwidth after posting.
  const int next = (r + 1) % p_count, prev = (r - 1 + p_count) % p_count;
  std::vector<std::uint8_t> out(500'000, 1), in(500'000);
  const double posted = system_clock()->now();
  Request rr = comm.irecv(std::span<std::uint8_t>(in), prev, 3, Channel::activations);
  Request sr = comm.isend(std::span<const std::uint8_t>(out), next, 3, Channel::activations);
  while (!rr.test()) std::this_thread::yield();
  sr.wait();
  EXPECT_GE(system_clock()->now() - posted, model.seconds({1, 500'000, 0, 0}));
  EXPECT_GT(comm.stats()[Channel::activations].link_seconds, 0.0);
}

// wait_idle() delivers like wait() but sleeps between polls: a receive that waits 300 ms for a
// late sender gives up its core (voluntary context switches of the waiting thread), where a
// spinning wait would keep it until the message arrives.
TEST(Comm, WaitIdleReceivesWithoutSpinning) {
  Communicator comm = Communicator::world();
  const int r = comm.rank(), p_count = comm.size();
  const int next = (r + 1) % p_count, prev = (r - 1 + p_count) % p_count;
  std::vector<int> out(1000, r), in(1000, -1);
  comm.barrier();
  if (r % 2 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));  // odd ranks send late
  const long switches_before = voluntary_switches();
  const double start = system_clock()->now();
  Request rr = comm.irecv(std::span<int>(in), prev, 5, Channel::control);
  Request sr = comm.isend(std::span<const int>(out), next, 5, Channel::control);
  rr.wait_idle();
  const double waited = system_clock()->now() - start;
  const long switches = voluntary_switches() - switches_before;
  sr.wait_idle();
  EXPECT_EQ(in, std::vector<int>(1000, prev));
  if (r % 2 == 0 && prev % 2 == 1) {
    EXPECT_GE(waited, 0.25);
    EXPECT_GE(switches, 50) << "in a wait of " << waited << " s";
  }
  comm.barrier();
}

TEST(Comm, AgreePropagatesTheFailingRanksErrorToEveryRank) {
  Communicator comm = Communicator::world();
  EXPECT_NO_THROW(comm.agree(true, ""));
  const int r = comm.rank();
  try {
    comm.agree(r != 1, "part-1/meta.json:0: partition book does not cover node 17");
    ADD_FAILURE() << "agree did not throw on rank " << r;
  } catch (const AgreedError& e) {
    EXPECT_EQ(e.failing_rank(), 1);
    EXPECT_STREQ(e.what(), "rank 1: part-1/meta.json:0: partition book does not cover node 17");
  }
  // Several failures: the lowest failing rank's message wins, via agree_on.
  try {
    comm.agree_on([&] {
      if (r >= comm.size() - 2) throw Error("rank " + std::to_string(r) + " cannot open its part");
    });
    ADD_FAILURE() << "agree_on did not throw on rank " << r;
  } catch (const AgreedError& e) {
    const int lowest = comm.size() - 2;
    EXPECT_EQ(e.failing_rank(), lowest);
    EXPECT_EQ(std::string(e.what()),
              "rank " + std::to_string(lowest) + ": rank " + std::to_string(lowest) + " cannot open its part");
  }
  // The communicator stays usable afterwards.
  EXPECT_EQ(comm.allreduce_sum(1, Channel::control), comm.size());
}

TEST(Comm, RunJobReturnsTheWorstStatusAndFailsEveryRankOnAnAgreedError) {
  // MPI is already running here, so run_job's session borrows it.
  EXPECT_EQ(run_job([](Communicator& world) { return world.rank() == 1 ? 3 : 0; }), 3);
  const int status = run_job([](Communicator& world) {
    world.agree(world.rank() != 1, "(expected by the test) bad --fanouts");
    return 0;
  });
  EXPECT_EQ(status, 1);
}

}  // namespace
}  // namespace loom::comm
