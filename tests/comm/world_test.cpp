// A process started without mpirun is a world of size 1 (singleton MPI init): every
// collective works and nothing is counted, since no byte crosses ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "loom/comm/communicator.hpp"
#include "loom/comm/mpi_session.hpp"

namespace loom::comm {
namespace {

// MPI can be initialized once per process: one session for all tests, finalized at exit.
Communicator& world() {
  struct Holder {
    MpiSession session;
    Communicator comm = session.world();
  };
  static Holder holder;
  return holder.comm;
}

TEST(SingletonWorld, HasOneRank) {
  Communicator& comm = world();
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.size(), 1);
  comm.barrier();
}

TEST(SingletonWorld, CollectivesReturnThisRanksDataAndCountNothing) {
  Communicator& comm = world();
  comm.reset_stats();
  const auto got = comm.alltoallv(std::vector<std::vector<std::int32_t>>{{1, 2, 3}}, Channel::features);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (std::vector<std::int32_t>{1, 2, 3}));

  std::vector<float> grads{1.5f, -2.0f};
  comm.allreduce_sum(grads, Channel::gradients);
  EXPECT_EQ(grads, (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(comm.allreduce_max(std::int64_t{7}, Channel::control), 7);
  EXPECT_DOUBLE_EQ(comm.allreduce_min(2.5, Channel::control), 2.5);

  std::vector<double> v{1, 2};
  comm.broadcast(v, 0, Channel::weights);
  EXPECT_EQ(v, (std::vector<double>{1, 2}));
  std::string text = "hello";
  comm.broadcast(text, 0, Channel::control);
  EXPECT_EQ(text, "hello");

  EXPECT_EQ(comm.allgather(42, Channel::control), std::vector<int>{42});
  const std::vector<std::int64_t> local{4, 5};
  EXPECT_EQ(comm.allgatherv(std::span<const std::int64_t>(local), Channel::embeddings)[0], local);
  EXPECT_EQ(comm.gatherv(std::span<const std::int64_t>(local), Channel::embeddings)[0], local);

  EXPECT_EQ(comm.stats(), CommStats{});
}

TEST(SingletonWorld, MessagesToSelfArriveAndAreNotCounted) {
  Communicator& comm = world();
  comm.reset_stats();
  std::vector<float> in(3);
  const std::vector<float> out{1, 2, 3};
  Request r = comm.irecv(std::span<float>(in), 0, 5, Channel::activations);
  comm.send(std::span<const float>(out), 0, 5, Channel::activations);
  r.wait();
  EXPECT_FALSE(r.active());
  EXPECT_EQ(in, out);
  EXPECT_EQ(comm.stats(), CommStats{});
}

TEST(SingletonWorld, DupSharesTheLinkModel) {
  Communicator& comm = world();
  Communicator copy = comm.dup();
  EXPECT_EQ(copy.size(), 1);
  comm.set_link_model(LinkModel{0, 1e-3, 0, 0});
  EXPECT_DOUBLE_EQ(copy.link_model().latency, 1e-3);
  comm.set_link_model(LinkModel{});
}

TEST(SingletonWorld, AgreeThrowsTheMessageWithoutARankPrefix) {
  Communicator& comm = world();
  EXPECT_NO_THROW(comm.agree(true, ""));
  try {
    comm.agree(false, "bad input");
    ADD_FAILURE() << "agree(false) returned";
  } catch (const AgreedError& e) {
    EXPECT_EQ(e.failing_rank(), 0);
    EXPECT_STREQ(e.what(), "bad input");
  }
  EXPECT_THROW(comm.agree_on([] { throw Error("file.txt:3: bad line"); }), AgreedError);
  EXPECT_NO_THROW(comm.agree_on([] {}));
}

TEST(SingletonWorld, BadArgumentsThrow) {
  Communicator& comm = world();
  EXPECT_THROW(comm.alltoallv(std::vector<std::vector<int>>(2), Channel::features), Error);
  const std::vector<int> data{1};
  EXPECT_THROW(comm.send(std::span<const int>(data), 1, 0, Channel::control), Error);
  EXPECT_THROW(comm.send(std::span<const int>(data), 0, kMaxTag + 1, Channel::control), Error);
  std::string text;
  EXPECT_THROW(comm.broadcast(text, 3, Channel::control), Error);
}

TEST(SingletonWorld, ReceiveOfTheWrongSizeThrows) {
  Communicator& comm = world();
  const std::vector<float> out{1, 2, 3};
  std::vector<float> in(4);
  Request r = comm.irecv(std::span<float>(in), 0, 9, Channel::activations);
  comm.send(std::span<const float>(out), 0, 9, Channel::activations);
  EXPECT_THROW(r.wait(), Error);
}

}  // namespace
}  // namespace loom::comm
