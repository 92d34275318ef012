// The up-front memory plan of one rank of `loom train` (memory_plan.hpp has the plan's type and
// its checks): plan_minibatch_memory() sizes the parts before the cache, the prefetch buffer and
// the pipeline are built; plan_device_memory() what the rank's GPU holds under --device cuda.
#pragma once

#include <cstdint>

#include "loom/nn/model.hpp"
#include "loom/train/memory_plan.hpp"
#include "loom/train/minibatch/minibatch_options.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::train {

// `held_bytes`: this process's resident bytes before it opened the data (core::resident_bytes).
MemoryPlan plan_minibatch_memory(const CheckedMinibatchOptions& options, const loader::TrainingData& data,
                                 const nn::GnnModel& model, std::int64_t held_bytes);

// Under --device cuda, what the rank's GPU holds, from the host plan's estimates: the tier of own
// rows (--device-rows), the model and optimizer, the batches in flight (they are copied to the
// device as they are prepared) and one step's activations. Exact inference moves one chunk of
// destinations at a time and is left out.
MemoryPlan plan_device_memory(const MemoryPlan& host_plan, const MinibatchOptions& options,
                              const loader::TrainingData& data);

}  // namespace loom::train
