// Python pickles (protocols 2 to 5) as a tree of values: enough of the pickle machine to read what
// torch.save writes for a dict of index arrays (tensors and numpy arrays), without Python. Objects
// are not constructed: a global is its dotted name, a call (REDUCE, NEWOBJ) its callable and
// arguments, BUILD an object and its state, a persistent id (torch's storages) its key. An opcode
// outside that set, or malformed data, throws Error naming `where` and the byte offset.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace loom::format {

struct PickleValue {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kBytes,
    kTuple,
    kList,
    kDict,
    kGlobal,
    kCall,
    kBuild,
    kPersistentId
  };
  Kind kind = Kind::kNone;
  std::int64_t integer = 0;  // kInt, kBool
  double real = 0;           // kFloat
  std::string text;          // kString (UTF-8), kBytes, kGlobal ("module.name"); a kInt wider
                             // than 64 bits: its little-endian bytes (integer: the low 64 bits)
  // kTuple, kList: the items; kDict: key, value, key, value...; kCall: callable, arguments (a
  // tuple); kBuild: object, state; kPersistentId: the id. Owned by the Pickle.
  std::vector<const PickleValue*> items;

  bool is(Kind k) const { return kind == k; }
  bool is_global(std::string_view suffix) const { return kind == Kind::kGlobal && text.ends_with(suffix); }
  // items[i], or Error naming `where` when there is no such item (a value of another shape).
  const PickleValue& item(std::size_t i, const std::string& where) const;
};

// The values a pickle built (they may refer to each other in cycles, as Python's may), and the
// one it returned.
class Pickle {
 public:
  const PickleValue& root() const { return *root_; }

 private:
  friend class PickleMachine;
  // On the heap: the values refer to each other, so moving a Pickle must not move them.
  std::unique_ptr<std::deque<PickleValue>> values_ = std::make_unique<std::deque<PickleValue>>();
  const PickleValue* root_ = nullptr;
};

// The pickle at the start of `bytes`; `consumed` (if given) gets its length.
Pickle read_pickle(std::string_view bytes, const std::string& where, std::size_t* consumed = nullptr);

}  // namespace loom::format
