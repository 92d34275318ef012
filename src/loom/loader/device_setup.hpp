// The device tier of `loom train --device D --device-rows FRACTION` (SALIENT++ storage tiers): each
// rank ranks its own rows by VIP for its training nodes and the run's fanouts and batch size, and
// keeps the hottest round(FRACTION x own rows) in device memory. Collective over `world` (errors
// are raised on every rank together). device_record() is the run's "device" metrics record.
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/loader/cache_setup.hpp"
#include "loom/loader/device_features.hpp"
#include "loom/loader/loader_options.hpp"
#include "loom/loader/training_data.hpp"

namespace loom::loader {

// `device_rows`: the share of own rows the tier keeps (--device-rows); `reads`: how the device
// gets the others (--host-reads).
DeviceFeatures build_device_features(double device_rows, HostReads reads, const TrainingBatches& batches,
                                     const TrainingData& data, torch::Device device, comm::Communicator& world);

// {"event": "device", device, tier rows and bytes over all ranks, own rows over all ranks, and
// tier_vip_share: the share of own-row reads VIP expects the tier to serve}.
nlohmann::json device_record(const DeviceFeatures& features, const TrainingData& data, comm::Communicator& world);

}  // namespace loom::loader
