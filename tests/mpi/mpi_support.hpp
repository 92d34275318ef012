// Helpers shared by the multi-rank tests: a scratch directory that rank 0 creates fresh and
// every rank knows, removed by rank 0 when the last rank is done with it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "loom/comm/communicator.hpp"

namespace loom::mpi_test {

class SharedScratch {
 public:
  SharedScratch(const comm::Communicator& world, const std::string& name) : world_(&world) {
    if (world.rank() == 0) {
      path_ =
          (std::filesystem::temp_directory_path() / ("loom-mpi-" + name + "-" + std::to_string(::getpid()))).string();
      std::filesystem::remove_all(path_);
      std::filesystem::create_directories(path_);
    }
    world.broadcast(path_, 0, comm::Channel::control);
  }
  ~SharedScratch() {
    world_->barrier();
    if (world_->rank() == 0) std::filesystem::remove_all(path_);
  }
  SharedScratch(const SharedScratch&) = delete;
  SharedScratch& operator=(const SharedScratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  const comm::Communicator* world_;
  std::string path_;
};

}  // namespace loom::mpi_test
