// OGB's link-prediction metrics over the scores of a split's positive and negative pairs, all
// ranks' together (link_metrics gathers them: each rank scores its own pairs):
//   auc      ROC-AUC, ties counted half (the Mann-Whitney statistic);
//   hits@K   the fraction of positives scored above the K-th highest negative (ogbl-collab,
//            ogbl-ddi; 1 when there are fewer than K negatives, as OGB's evaluator does);
//   mrr      the mean over positives of 1 / (1 + the negatives scored above it), every positive
//            ranked among all the split's negatives (ogbl-citation2 ranks among its own).
// A split without positives or negatives scores NaN.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "loom/comm/communicator.hpp"

namespace loom::scores {

struct LinkMetrics {
  double auc = 0, mrr = 0;
  std::map<int, double> hits;  // K -> hits@K
  std::int64_t positives = 0, negatives = 0;
};

LinkMetrics link_metrics(std::span<const float> positive, std::span<const float> negative,
                         std::span<const int> hits_at);

// The same over every rank's scores (collective; the scores go over the control channel).
LinkMetrics link_metrics(std::span<const float> positive, std::span<const float> negative, std::span<const int> hits_at,
                         const comm::Communicator& world);

// "hits@50" and so on.
std::string hits_name(int k);

}  // namespace loom::scores
