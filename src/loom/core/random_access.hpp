// Advice to the kernel for mapped arrays read at random (feature rows gathered by id, adjacency
// rows of sampled nodes): no readahead around each page touched. Where the file is larger than
// the page cache (a papers100M-shaped store on one host), readahead reads pages no batch asked
// for and pushes out those it will. Advice only: on memory that is not a file's mapping it changes
// nothing, and a failure is harmless.
#pragma once

#include "loom/core/npy.hpp"

namespace loom::core {

void advise_random_access(const NpyArray& array);

}  // namespace loom::core
