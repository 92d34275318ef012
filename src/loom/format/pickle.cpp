#include "loom/format/pickle.hpp"

#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::format {

namespace {

using Kind = PickleValue::Kind;

}  // namespace

class PickleMachine {
 public:
  PickleMachine(std::string_view bytes, const std::string& where, Pickle& out)
      : bytes_(bytes), where_(where), out_(out) {}

  void run(std::size_t* consumed) {
    while (true) {
      const std::size_t at = pos_;
      const auto op = static_cast<unsigned char>(take(1)[0]);
      if (op == '.') {
        if (consumed) *consumed = pos_;
        if (stack_.size() != 1 || !marks_.empty()) fail(at, "a pickle that ends with other than one value");
        out_.root_ = stack_.back();
        return;
      }
      step(op, at);
    }
  }

 private:
  PickleValue* make(Kind kind) {
    PickleValue& v = out_.values_->emplace_back();
    v.kind = kind;
    return &v;
  }
  PickleValue* make_int(std::int64_t value, Kind kind = Kind::kInt) {
    PickleValue* v = make(kind);
    v->integer = value;
    return v;
  }
  PickleValue* make_text(Kind kind, std::string_view text) {
    PickleValue* v = make(kind);
    v->text = text;
    return v;
  }
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Error::in_file(where_, 0, fmt::format("pickle byte {}: {}", at, what));
  }
  std::string_view take(std::size_t n) {
    if (n > bytes_.size() - pos_) fail(pos_, "truncated");
    const auto out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::uint64_t take_le(std::size_t n) {
    const auto b = take(n);
    std::uint64_t value = 0;
    for (std::size_t i = n; i-- > 0;) value = (value << 8) | static_cast<unsigned char>(b[i]);
    return value;
  }
  std::string take_line() {
    const auto end = bytes_.find('\n', pos_);
    if (end == std::string_view::npos) fail(pos_, "truncated");
    std::string line(bytes_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return line;
  }
  PickleValue* pop(std::size_t at) {
    if (stack_.size() <= marks_base()) fail(at, "stack underflow");
    auto v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::size_t marks_base() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<PickleValue*> pop_to_mark(std::size_t at) {
    if (marks_.empty()) fail(at, "no mark");
    std::vector<PickleValue*> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  PickleValue*& top(std::size_t at) {
    if (stack_.size() <= marks_base()) fail(at, "stack underflow");
    return stack_.back();
  }
  void memo_put(std::size_t index, std::size_t at) { memo_[index] = top(at); }
  PickleValue* memo_get(std::size_t index, std::size_t at) const {
    const auto it = memo_.find(index);
    if (it == memo_.end()) fail(at, fmt::format("memo entry {} is not set", index));
    return it->second;
  }
  PickleValue* sequence(Kind kind, const std::vector<PickleValue*>& items) {
    PickleValue* v = make(kind);
    v->items.assign(items.begin(), items.end());
    return v;
  }
  // LONG1/LONG4: two's complement, little-endian; wider than 64 bits (torch's magic number) keeps
  // its bytes in `text` beside its low 64 bits.
  PickleValue* long_integer(std::string_view b) {
    if (b.size() > 8) {
      PickleValue* v = make_int(signed_le(b.substr(0, 8)));
      v->text = b;
      return v;
    }
    return make_int(signed_le(b));
  }
  std::int64_t signed_le(std::string_view b) {
    std::uint64_t value = 0;
    for (std::size_t i = b.size(); i-- > 0;) value = (value << 8) | static_cast<unsigned char>(b[i]);
    if (!b.empty() && b.size() < 8 && (static_cast<unsigned char>(b.back()) & 0x80))
      value |= ~std::uint64_t{0} << (8 * b.size());
    return static_cast<std::int64_t>(value);
  }
  void add_to_dict(PickleValue* dict, const std::vector<PickleValue*>& items, std::size_t at) {
    if (!dict->is(Kind::kDict) || items.size() % 2) fail(at, "SETITEMS on what is not a dict");
    dict->items.insert(dict->items.end(), items.begin(), items.end());
  }
  void add_to_list(PickleValue* list, const std::vector<PickleValue*>& items, std::size_t at) {
    if (!list->is(Kind::kList)) fail(at, "APPENDS on what is not a list");
    list->items.insert(list->items.end(), items.begin(), items.end());
  }

  // One opcode at byte `at`: a literal, a memo or name operation, or one that builds a structure.
  void step(unsigned char op, std::size_t at) {
    if (!push_literal(op) && !memo_or_name(op, at) && !build_structure(op, at))
      fail(at, fmt::format("opcode 0x{:02x} is not one Loom reads (not a torch.save'd dict of arrays?)", op));
  }

  // Framing, marks, empty containers, numbers and strings; false for any other opcode.
  bool push_literal(unsigned char op) {
    switch (op) {
      case 0x80: take(1); break;                         // PROTO
      case 0x95: take(8); break;                         // FRAME
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '}': stack_.push_back(make(Kind::kDict)); break;
      case ']': stack_.push_back(make(Kind::kList)); break;
      case ')': stack_.push_back(make(Kind::kTuple)); break;
      case 'N': stack_.push_back(make(Kind::kNone)); break;
      case 0x88: stack_.push_back(make_int(1, Kind::kBool)); break;
      case 0x89: stack_.push_back(make_int(0, Kind::kBool)); break;
      case 'K': stack_.push_back(make_int(static_cast<std::int64_t>(take_le(1)))); break;
      case 'M': stack_.push_back(make_int(static_cast<std::int64_t>(take_le(2)))); break;
      case 'J': stack_.push_back(make_int(static_cast<std::int32_t>(take_le(4)))); break;
      case 0x8a: stack_.push_back(long_integer(take(take_le(1)))); break;  // LONG1
      case 0x8b: stack_.push_back(long_integer(take(take_le(4)))); break;  // LONG4
      case 'G': {                                                          // BINFLOAT, big-endian
        std::uint64_t bits = 0;
        for (const char c : take(8)) bits = (bits << 8) | static_cast<unsigned char>(c);
        PickleValue* v = make(Kind::kFloat);
        std::memcpy(&v->real, &bits, 8);
        stack_.push_back(v);
        break;
      }
      case 'X': stack_.push_back(make_text(Kind::kString, take(take_le(4)))); break;
      case 0x8c: stack_.push_back(make_text(Kind::kString, take(take_le(1)))); break;
      case 0x8d: stack_.push_back(make_text(Kind::kString, take(take_le(8)))); break;
      case 'U': stack_.push_back(make_text(Kind::kBytes, take(take_le(1)))); break;  // py2 str
      case 'T': stack_.push_back(make_text(Kind::kBytes, take(take_le(4)))); break;
      case 'C': stack_.push_back(make_text(Kind::kBytes, take(take_le(1)))); break;
      case 'B': stack_.push_back(make_text(Kind::kBytes, take(take_le(4)))); break;
      case 0x8e: stack_.push_back(make_text(Kind::kBytes, take(take_le(8)))); break;
      default: return false;
    }
    return true;
  }

  // The memo (put, get) and globals by name; false for any other opcode.
  bool memo_or_name(unsigned char op, std::size_t at) {
    switch (op) {
      case 'q': memo_put(take_le(1), at); break;
      case 'r': memo_put(take_le(4), at); break;
      case 0x94: memo_put(memo_.size(), at); break;  // MEMOIZE
      case 'h': stack_.push_back(memo_get(take_le(1), at)); break;
      case 'j': stack_.push_back(memo_get(take_le(4), at)); break;
      case 'c': {  // GLOBAL
        std::string module = take_line();
        stack_.push_back(make_text(Kind::kGlobal, module + "." + take_line()));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        const PickleValue* name = pop(at);
        const PickleValue* module = pop(at);
        if (!name->is(Kind::kString) || !module->is(Kind::kString)) fail(at, "STACK_GLOBAL of what are not names");
        stack_.push_back(make_text(Kind::kGlobal, module->text + "." + name->text));
        break;
      }
      default: return false;
    }
    return true;
  }

  // Tuples, lists, dicts, calls, BUILD, persistent ids and their items; false for any other opcode.
  bool build_structure(unsigned char op, std::size_t at) {
    switch (op) {
      case 0x85:  // TUPLE1, TUPLE2, TUPLE3
      case 0x86:
      case 0x87: {
        std::vector<PickleValue*> items(op - 0x84);
        for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop(at);
        stack_.push_back(sequence(Kind::kTuple, items));
        break;
      }
      case 't': stack_.push_back(sequence(Kind::kTuple, pop_to_mark(at))); break;
      case 'l': stack_.push_back(sequence(Kind::kList, pop_to_mark(at))); break;
      case 'd': {
        PickleValue* dict = make(Kind::kDict);
        add_to_dict(dict, pop_to_mark(at), at);
        stack_.push_back(dict);
        break;
      }
      case 'R':     // REDUCE
      case 0x81: {  // NEWOBJ
        PickleValue* args = pop(at);
        PickleValue* callable = pop(at);
        stack_.push_back(sequence(Kind::kCall, {callable, args}));
        break;
      }
      case 'b': {  // BUILD: in place, as Python sets the state of the object others refer to (memo)
        PickleValue* state = pop(at);
        PickleValue* object = top(at);
        PickleValue* unbuilt = make(Kind::kNone);
        *unbuilt = std::move(*object);
        *object = PickleValue{};
        object->kind = Kind::kBuild;
        object->items = {unbuilt, state};
        break;
      }
      case 'Q': {  // BINPERSID
        stack_.push_back(sequence(Kind::kPersistentId, {pop(at)}));
        break;
      }
      case 's': {
        PickleValue* value = pop(at);
        PickleValue* key = pop(at);
        add_to_dict(top(at), {key, value}, at);
        break;
      }
      case 'u': {
        const auto items = pop_to_mark(at);
        add_to_dict(top(at), items, at);
        break;
      }
      case 'a': {
        PickleValue* item = pop(at);
        add_to_list(top(at), {item}, at);
        break;
      }
      case 'e': {
        const auto items = pop_to_mark(at);
        add_to_list(top(at), items, at);
        break;
      }
      default: return false;
    }
    return true;
  }

  std::string_view bytes_;
  const std::string& where_;
  Pickle& out_;
  std::size_t pos_ = 0;
  std::vector<PickleValue*> stack_;
  std::unordered_map<std::size_t, PickleValue*> memo_;
  std::vector<std::size_t> marks_;
};

const PickleValue& PickleValue::item(std::size_t i, const std::string& where) const {
  if (i >= items.size())
    throw Error::in_file(where, 0, fmt::format("a pickled value of another shape than expected (no item {})", i));
  return *items[i];
}

Pickle read_pickle(std::string_view bytes, const std::string& where, std::size_t* consumed) {
  Pickle out;
  PickleMachine(bytes, where, out).run(consumed);
  return out;
}

}  // namespace loom::format
