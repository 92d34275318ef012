#include "loom/train/minibatch/link_options.hpp"

#include "loom/core/error.hpp"

namespace loom::train {

void check_link_options(const LinkOptions& o) {
  LOOM_CHECK_ARG(o.split.valid >= 0 && o.split.test >= 0 && o.split.valid + o.split.test < 1, "--link-valid",
                 "the held-out fractions (--link-valid {}, --link-test {}) must be >= 0 and sum to less than 1",
                 o.split.valid, o.split.test);
  LOOM_CHECK_ARG(o.split.eval_negatives >= 1, "--link-eval-negatives", "must be >= 1, got {}", o.split.eval_negatives);
  LOOM_CHECK_ARG(o.negative_ratio >= 0, "--negative-ratio", "must be >= 0, got {}", o.negative_ratio);
  for (const int k : o.hits_at) LOOM_CHECK_ARG(k >= 1, "--hits-at", "each K must be >= 1, got {}", k);
}

}  // namespace loom::train
