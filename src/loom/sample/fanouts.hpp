// Fanouts: the one checked sampling spec every NeighborSampler is built from. fanouts[0] is the
// hop from the seeds (PyG order: "15,10,5" samples 15 neighbours of each seed); -1 takes every
// neighbour. A Fanouts exists only checked: its constructor is the one place a list of fanouts is
// checked (at least one; each > 0 or -1, at most 2^30; one per layer of the model where the
// caller names the layers), and throws Error::in_argument naming the argument it came from
// (--fanouts, --eval-fanouts, fanouts=...).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace loom::sample {

class Fanouts {
 public:
  // How a list must match a model of `layers` layers: any length (layers = 0), exactly one per
  // layer, or one per layer with a single value standing for every layer (--eval-fanouts 20).
  enum class Layers { kExact, kOneForAll };
  explicit Fanouts(std::vector<std::int32_t> values, const std::string& argument = "fanouts", int layers = 0,
                   Layers match = Layers::kExact);
  // Literal lists (tests, benchmarks): Fanouts{15, 10, 5}.
  Fanouts(std::initializer_list<std::int32_t> values) : Fanouts(std::vector<std::int32_t>(values)) {}
  // Every neighbour at every layer (exact inference).
  static Fanouts all_neighbours(int layers);

  const std::vector<std::int32_t>& values() const { return values_; }
  int num_layers() const { return static_cast<int>(values_.size()); }
  std::size_t size() const { return values_.size(); }
  std::int32_t operator[](std::size_t hop) const { return values_[hop]; }
  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }
  operator std::span<const std::int32_t>() const { return values_; }
  bool operator==(const Fanouts&) const = default;

 private:
  std::vector<std::int32_t> values_;
};

// Parses "15,10,5" into fanouts, checked as Fanouts checks them (their count against a model's
// layers comes later); throws loom::Error naming `argument`. What the CLI calls once at its boundary.
std::vector<std::int32_t> parse_fanouts(const std::string& text, const std::string& argument = "fanouts");

}  // namespace loom::sample
