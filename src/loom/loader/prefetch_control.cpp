#include "loom/loader/prefetch_control.hpp"

namespace loom::loader {

namespace {
constexpr std::size_t kRecentDecisions = 5;
}

PrefetchControl::PrefetchControl(feature::PrefetchBuffer& buffer, std::unique_ptr<control::Controller> controller,
                                 int window, nlohmann::json facts, const std::string& log_path)
    : buffer_(&buffer),
      controller_(std::move(controller)),
      window_(static_cast<std::size_t>(std::max(1, window))),
      log_(log_path, "--decision-log") {
  context_.facts = std::move(facts);
}

void PrefetchControl::after_batch(const feature::FetchStats& fetch, double epoch_progress) {
  const auto capacity = static_cast<double>(std::max<std::int64_t>(1, buffer_->capacity()));
  control::StepStats s;
  s.step = step_++;
  s.epoch_progress = epoch_progress;
  s.hits = fetch.prefetch_hits;
  s.lookups = fetch.prefetch_hits + fetch.remote_rows - fetch.prefetch_rows;
  s.remote_rows = fetch.remote_rows;
  s.fetch_seconds = fetch.seconds;
  s.step_seconds = step_seconds_.load();
  s.occupancy = static_cast<double>(buffer_->occupancy()) / capacity;
  s.candidate_share = static_cast<double>(buffer_->candidates()) / capacity;
  context_.window.push_back(s);
  while (context_.window.size() > window_) context_.window.pop_front();

  for (auto& r : context_.recent)
    if (!r.measured && s.step >= r.step + static_cast<std::int64_t>(window_)) {
      r.after = control::summarize(context_.window);
      r.measured = true;
      log_.write({{"event", "outcome"},
                  {"step", r.step},
                  {"decision", r.evict ? "evict" : "keep"},
                  {"source", r.source},
                  {"before", r.before.to_json()},
                  {"after", r.after.to_json()}});
    }
  const control::Decision arrived = controller_->poll();
  if (!arrived.pending) apply(arrived);
  if (s.step % static_cast<std::int64_t>(window_) == static_cast<std::int64_t>(window_) - 1) {
    const control::Decision decided = controller_->decide(context_);
    if (!decided.pending) apply(decided);
  }
}

void PrefetchControl::apply(const control::Decision& d) {
  control::DecisionRecord r;
  r.step = context_.window.empty() ? 0 : context_.window.back().step;
  r.evict = d.evict;
  r.source = d.source;
  r.explanation = d.explanation;
  r.before = control::summarize(context_.window);
  context_.recent.push_back(r);
  while (context_.recent.size() > kRecentDecisions) context_.recent.erase(context_.recent.begin());
  ++counters_.decisions;
  counters_.fallbacks += d.fell_back;
  if (d.evict) {
    ++counters_.evictions;
    buffer_->request_eviction();
  }
  nlohmann::json j = r.to_json();
  j["event"] = "decision";
  j["controller"] = controller_->name();
  if (!d.expected_impact.empty()) j["expected_impact"] = d.expected_impact;
  if (d.latency_seconds > 0) j["latency_seconds"] = d.latency_seconds;
  log_.write(j);
}

}  // namespace loom::loader
