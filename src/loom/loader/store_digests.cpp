#include "loom/loader/store_digests.hpp"

#include <utility>
#include <vector>

namespace loom::loader {

partition::StoreVerification start_store_verification(const std::string& path, const comm::Communicator& world) {
  const std::vector<std::string> all = partition::mapped_folders(path);  // dir, or dir, topology, part-0, ...
  std::vector<std::string> mine;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const int owner = i < 2 ? static_cast<int>(i) : static_cast<int>(i) - 2;
    if (owner % world.size() == world.rank()) mine.push_back(all[i]);
  }
  return partition::StoreVerification(std::move(mine));
}

void join_digest_check(partition::StoreVerification& digests, core::MetricsLog& metrics,
                       const comm::Communicator& world) {
  try {
    world.agree_on([&] { digests.wait(); });
  } catch (...) {
    metrics.discard();
    throw;
  }
}

}  // namespace loom::loader
