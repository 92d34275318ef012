#include "loom/graph/generate/rmat.hpp"

#include <cmath>
#include <numeric>

#include "loom/core/fs.hpp"
#include "loom/core/error.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/generate/splits.hpp"
#include "loom/graph/generate/synthetic.hpp"

namespace loom::graph::generate {

namespace {

constexpr int kMaxScale = 31;

// Quadrant thresholds on a 32-bit uniform: [0, ab) picks the top half of rows, [a, ab) or
// [abc, 2^32) sets the column bit.
struct Quadrants {
  std::uint64_t a, ab, abc;
  explicit Quadrants(const RmatOptions& o)
      : a(to_fixed(o.a)), ab(to_fixed(o.a + o.b)), abc(to_fixed(o.a + o.b + o.c)) {}
  static std::uint64_t to_fixed(double p) { return static_cast<std::uint64_t>(std::ldexp(p, 32)); }
};

// One R-MAT edge, two levels per 64-bit draw, branch-free.
inline void rmat_edge(core::Rng& rng, int scale, const Quadrants& q, std::int64_t& u, std::int64_t& v) {
  std::uint64_t row = 0, col = 0, bits = 0;
  for (int level = 0; level < scale; ++level) {
    if ((level & 1) == 0) bits = rng.next();
    const std::uint64_t x = bits & 0xffffffffULL;
    bits >>= 32;
    row = (row << 1) | static_cast<std::uint64_t>(x >= q.ab);
    col = (col << 1) | static_cast<std::uint64_t>((x >= q.a && x < q.ab) || x >= q.abc);
  }
  u = static_cast<std::int64_t>(row);
  v = static_cast<std::int64_t>(col);
}

}  // namespace

void check(const RmatOptions& o) {
  LOOM_CHECK_ARG(o.scale >= 1 && o.scale <= kMaxScale, "--scale", "must be in 1..{}, got {}", kMaxScale, o.scale);
  LOOM_CHECK_ARG(o.edge_factor > 0 && std::isfinite(o.edge_factor), "--edge-factor", "must be positive, got {}",
                 o.edge_factor);
  LOOM_CHECK_ARG(o.a >= 0 && o.a <= 1, "--a", "must be a probability in [0, 1], got {}", o.a);
  LOOM_CHECK_ARG(o.b >= 0 && o.b <= 1, "--b", "must be a probability in [0, 1], got {}", o.b);
  LOOM_CHECK_ARG(o.c >= 0 && o.c <= 1, "--c", "must be a probability in [0, 1], got {}", o.c);
  LOOM_CHECK_ARG(o.a + o.b + o.c < 1, "--c", "a + b + c must be below 1 (d = 1 - a - b - c > 0), got {} + {} + {} = {}",
                 o.a, o.b, o.c, o.a + o.b + o.c);
  LOOM_CHECK_ARG(o.feat_dim >= 0, "--feat-dim", "must not be negative, got {}", o.feat_dim);
  LOOM_CHECK_ARG(o.classes >= 0, "--classes", "must not be negative, got {}", o.classes);
  LOOM_CHECK_ARG(o.classes <= (std::int64_t{1} << o.scale), "--classes", "{} classes for only {} vertices", o.classes,
                 std::int64_t{1} << o.scale);
  fraction_sizes(std::int64_t{1} << o.scale, o.train, o.valid);
  check_generator_memory(std::int64_t{1} << o.scale, o.classes, o.feat_dim);
}

namespace {

// What draws an R-MAT graph's edges and rows, O(vertices): the id shuffle and the labels.
struct RmatModel {
  RmatOptions o;
  core::Rng root;
  std::int64_t n = 0, m = 0;
  std::vector<std::int64_t> perm;  // perm[R-MAT id] = stored id
  Quadrants quadrants;

  explicit RmatModel(const RmatOptions& options)
      : o(options), root(options.seed), n(std::int64_t{1} << options.scale), quadrants(options) {
    m = static_cast<std::int64_t>(std::llround(o.edge_factor * static_cast<double>(n)));
    perm.resize(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    core::Rng perm_rng = root.split(kStreamPermutation);
    core::shuffle(perm.begin(), perm.end(), perm_rng);
  }

  // Edges [begin, end) (block-aligned begin) into src/dst, each block from its own stream.
  void draw(std::int64_t begin, std::int64_t end, std::int64_t* src, std::int64_t* dst) const {
    core::parallel_for_blocks(end - begin, kEdgeBlock, [&](std::int64_t first, std::int64_t last, std::int64_t) {
      core::Rng rng = root.split(kStreamEdges, static_cast<std::uint64_t>((begin + first) / kEdgeBlock));
      for (std::int64_t e = first; e < last; ++e) {
        std::int64_t u, v;
        rmat_edge(rng, o.scale, quadrants, u, v);
        src[e] = perm[u];
        dst[e] = perm[v];
      }
    });
  }

  std::vector<std::int64_t> labels() const {
    std::vector<std::int64_t> label;
    if (o.classes == 0) return label;
    label.resize(static_cast<std::size_t>(n));
    core::parallel_for(
        n, [&](std::int64_t id) { label[perm[id]] = (id * o.classes) >> o.scale; }, 1 << 16);
    return label;
  }

  std::map<std::string, std::vector<std::int64_t>> splits() const {
    if (o.classes == 0) return {};
    std::vector<std::int64_t> pool(static_cast<std::size_t>(n));
    std::iota(pool.begin(), pool.end(), 0);
    return random_splits(std::move(pool), fraction_sizes(n, o.train, o.valid), "test", root.split(kStreamSplits));
  }

  std::optional<BagOfWords> words() const { return std::nullopt; }

  std::optional<GaussianFeatures> features() const {
    if (o.feat_dim == 0) return std::nullopt;
    return GaussianFeatures{o.feat_dim, {}, {}, 1.0, root.split(kStreamFeatures)};
  }

  nlohmann::json provenance() const {
    nlohmann::json p = {{"generator", "rmat"},
                        {"scale", o.scale},
                        {"edge_factor", o.edge_factor},
                        {"a", o.a},
                        {"b", o.b},
                        {"c", o.c},
                        {"d", 1 - o.a - o.b - o.c},
                        {"seed", o.seed}};
    if (o.classes > 0) p["labels"] = "floor(rmat_id * classes / 2^scale), before the id shuffle";
    return p;
  }
};

}  // namespace

GraphData generate_rmat(const RmatOptions& o) {
  check(o);
  core::Timer timer;
  const RmatModel model(o);
  EdgeList edges = draw_edge_list(model, model.n);
  spdlog::info("rmat: {} edges on {} vertices generated in {:.1f} s", model.m, model.n, timer.seconds());
  GraphData data;
  set_symmetric_graph(edges, data);
  data.label = model.labels();
  if (o.classes > 0) data.num_classes = o.classes;
  data.splits = model.splits();
  if (const auto features = model.features()) {
    data.feat_dim = o.feat_dim;
    data.feat = gaussian_features(model.n, *features);
  }
  put_model_provenance(model.provenance(), data.provenance);
  data.provenance["seconds"] = timer.seconds();
  return data;
}

void generate_rmat_store(const RmatOptions& options, const std::string& output_dir, const StoreWriteOptions& write) {
  check(options);
  core::check_output_target(output_dir, write.overwrite);
  core::check_disk_for(std::ldexp(1.0, options.scale) * (2 * options.edge_factor * sizeof(std::int32_t) +
                                                         static_cast<double>(options.feat_dim) * sizeof(float)),
                       output_dir, "--edge-factor",
                       fmt::format("2^{} vertices, {} edges each and {} features", options.scale, options.edge_factor,
                                   options.feat_dim));
  core::Timer timer;
  const RmatModel model(options);
  write_synthetic_store(output_dir, write, model_edges(model, model.n),
                        model_rows(model, model.n, model.labels(), options.classes),
                        [&](const Csr&, nlohmann::json& p) { p["seconds"] = timer.seconds(); });
  spdlog::info("rmat: {} vertices, {} edges drawn, written to {} in {:.1f} s", model.n, model.m, output_dir,
               timer.seconds());
}

}  // namespace loom::graph::generate
