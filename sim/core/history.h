// The history of a run, in Jepsen's shape: plain records
//   {index, time, actor, type, f, value}
// with type invoke / ok / fail / info (info: outcome unknown, or an event
// that is not an operation, such as a fault). Times are true (simulation)
// time. Faults are recorded under the actor "nemesis". Checkers are pure
// functions of this data and know nothing of Redis or of the worlds.
//
// An op's value is data, not text: a Redis command and its reply as the
// Command and Reply that crossed the wire, a node's key state as its value
// and TTL, a lock step as its key and whether it is nested, a number as a
// number. The values live in typed side tables of the History, indexed from
// the op, so that an Op stays small (a run can record 10^6 of them); read
// them with history.command(op), history.state(op), ... Text is made only
// when a value is written out (result JSON, trace lines, the terminal), by
// ValueText, one formatting function per kind; nothing parses it back.
#ifndef LOCKSIM_SIM_CORE_HISTORY_H_
#define LOCKSIM_SIM_CORE_HISTORY_H_

#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/reply.h"
#include "sim/core/time.h"

namespace locksim {

enum class OpType : uint8_t { kInvoke, kOk, kFail, kInfo };

// What an operation is, and the value it carries (History's accessor).
// Client operations:
//   acquire, cs (the critical section: invoke on entry, ok on exit),
//   release      key(op), and op.nested for a lock taken again inside its
//                own critical section (a client with "reenter");
//   redis        one command to one node (op.node): invoke carries
//                command(op), ok the reply(op), info a reply that never
//                came (the socket timeout's error reply);
//   adapter      one request to an adapter-driven client's library process
//                (docs/adapters.md) and its reply: text(op), the JSON line
//                exchanged (not a Redis command: locksim does not see the
//                library's own commands).
// The protected resource (workloads), number(op):
//   read         the value read (ok); the commands workload reads replies
//                instead: reply_check(op), ok when it is the one Redis
//                gives, fail when not;
//   write        the value written, with token(op), the fencing token it
//                carried (ok: accepted, fail: rejected by the fencing guard);
//   refresh      the invalidation epoch (token-refresh);
//   job          the tick (scheduled-job).
// Rate limiters: admit (invoke: key(op); ok admitted / fail refused:
// number(op), the window's count).
// Faults, under the nemesis with `subject` = the actor acted on (the main
// actor of its process) where there is one, text(op) their description:
// pause, resume, crash, restart, clock, expire, failover, partition, heal,
// delay, drop.
// Node state: state, recorded under a Redis node each time a watched key
// changes on it, state(op); type ok when the value changed or the key went
// away, info when only its TTL changed; `subject` = the client thread whose
// command made the change (-1: expiry, replication, restart, a fault).
enum class OpF : uint8_t {
  kAcquire, kCs, kRelease, kRedis, kPause, kResume, kRead, kWrite, kRefresh, kJob, kAdmit,
  kCrash, kRestart, kClock, kExpire, kFailover, kPartition, kHeal, kDelay, kDrop, kState,
  kAdapter
};

std::string_view OpTypeName(OpType t);
std::string_view OpFName(OpF f);

// Which side table an op's value is in (kText the last: Op keeps it in 4
// bits, and a static_assert below checks kText).
enum class Payload : uint8_t {
  kNone, kKey, kCommand, kReply, kNumber, kReplyCheck, kState, kText
};

struct Op {
  Nanos time{0};
  int actor = 0;      // a thread, or a node, or the nemesis: History::name(actor)
  uint32_t slot = 0;  // where the value is in its side table
  int subject = -1;   // faults: the actor acted on; state: who changed it
  OpType type = OpType::kInfo;
  OpF f = OpF::kAcquire;
  // The rest in bit-fields, which keep an op at 24 bytes (the kinds the
  // checkers read most, above, stay whole bytes).
  int16_t node : 11 = -1;  // the Redis node, for f == kRedis (a scenario has 9 at most)
  Payload payload : 4 = Payload::kNone;
  bool nested : 1 = false;  // acquire / release of a lock already held (reenter)
};
// Its place in the history is not in it: the history's iterators and
// lock_ops() know it (index()), and so does History::IndexOf.
// A history holds millions of them: keep an Op at 24 bytes.
static_assert(sizeof(Op) == 24);
// The bit-field holds every kind of value: a new one past these needs a wider field.
static_assert(static_cast<int>(Payload::kText) < 16);
static_assert(std::is_trivially_destructible_v<Op>);

// A history's ops, in fixed-size chunks that never move. Appending copies
// nothing that is there (a doubling vector held its old and its new array
// at once: a long run's ops three times over at the peak, in explore, the
// largest seed's), and a reference to an op stays valid while more are
// added. Read it like a vector: ops[i], size(), a range for.
class OpLog {
 public:
  static constexpr size_t kChunkBits = 10;  // 1 024 ops, 24 KiB
  static constexpr size_t kChunkSize = size_t{1} << kChunkBits;

  // A random-access iterator: the op's index, and its address kept at hand
  // so that a range for reads ops as from an array.
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Op;
    using difference_type = std::ptrdiff_t;
    using pointer = const Op*;
    using reference = const Op&;
    Iterator() = default;
    Iterator(const OpLog* log, size_t i) : log_(log), i_(i), at_(log->Address(i)) {}
    const Op& operator*() const { return *at_; }
    // The op's place in the log.
    int32_t index() const { return static_cast<int32_t>(i_); }
    const Op* operator->() const { return at_; }
    const Op& operator[](difference_type n) const { return *(*this + n); }
    Iterator& operator++() {
      ++i_;
      ++at_;
      if ((i_ & (kChunkSize - 1)) == 0) at_ = log_->Address(i_);
      return *this;
    }
    Iterator operator++(int) { Iterator old = *this; ++*this; return old; }
    Iterator& operator+=(difference_type n) {
      return *this = Iterator(log_, i_ + static_cast<size_t>(n));
    }
    Iterator& operator--() { return *this += -1; }
    Iterator operator--(int) { Iterator old = *this; --*this; return old; }
    Iterator& operator-=(difference_type n) { return *this += -n; }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.i_ <=> b.i_; }

   private:
    const OpLog* log_ = nullptr;
    size_t i_ = 0;
    const Op* at_ = nullptr;
  };

  OpLog() = default;
  OpLog(OpLog&& other) noexcept
      : chunks_(std::move(other.chunks_)), size_(std::exchange(other.size_, 0)) {}
  OpLog& operator=(OpLog&& other) noexcept {
    chunks_ = std::move(other.chunks_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  OpLog(const OpLog& other) {
    for (const Op& op : other) Append() = op;
  }
  OpLog& operator=(const OpLog& other) {
    if (this != &other) *this = OpLog(other);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Op& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const Op& back() const { return (*this)[size_ - 1]; }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size_); }
  // The place of an op of this log, found from its address: O(chunks), for
  // an op met outside an iteration (tests, error messages); a loop that
  // needs the places reads its iterator's index().
  int32_t IndexOf(const Op& op) const {
    const std::less<const Op*> before;
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const Op* first = chunks_[c].get();
      if (!before(&op, first) && before(&op, first + kChunkSize)) {
        return static_cast<int32_t>((c << kChunkBits) + static_cast<size_t>(&op - first));
      }
    }
    return -1;
  }
  // A new op at the end, for the caller to fill in; it stays where it is.
  Op& Append() {
    if ((size_ & (kChunkSize - 1)) == 0) chunks_.emplace_back(NewChunk());
    return *std::construct_at(&chunks_.back()[size_++ & (kChunkSize - 1)]);
  }

 private:
  struct FreeChunk {
    void operator()(Op* chunk) const { ::operator delete(chunk); }
  };
  using Chunk = std::unique_ptr<Op[], FreeChunk>;
  // Storage for kChunkSize ops, each constructed when appended.
  static Chunk NewChunk() {
    return Chunk(static_cast<Op*>(::operator new(kChunkSize * sizeof(Op))));
  }
  // Where op i is, or will be when appended; null past the last chunk.
  const Op* Address(size_t i) const {
    const size_t chunk = i >> kChunkBits;
    return chunk < chunks_.size() ? &chunks_[chunk][i & (kChunkSize - 1)] : nullptr;
  }

  std::vector<Chunk> chunks_;
  size_t size_ = 0;
};

// A side table of a history: values that never move (a reference stays
// valid while more are added), in chunks of kChunkSize reserved as the
// first value of each comes. Unlike std::deque it allocates nothing until
// then, neither when made nor when moved: a history has six, most runs
// fill two, and explore makes and moves histories for thousands of short
// runs (the deques' allocations were 3% of it, callgrind).
template <typename T>
class StableTable {
 public:
  static constexpr size_t kChunkSize = 32;

  StableTable() = default;
  StableTable(StableTable&& other) noexcept
      : chunks_(std::move(other.chunks_)), size_(std::exchange(other.size_, 0)) {}
  StableTable& operator=(StableTable&& other) noexcept {
    if (this != &other) {
      chunks_ = std::move(other.chunks_);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  StableTable(const StableTable& other) {
    for (size_t i = 0; i < other.size(); ++i) push_back(other[i]);
  }
  StableTable& operator=(const StableTable& other) {
    if (this != &other) *this = StableTable(other);
    return *this;
  }

  size_t size() const { return size_; }
  const T& operator[](size_t i) const { return chunks_[i / kChunkSize][i % kChunkSize]; }
  void push_back(T value) {
    if (size_ % kChunkSize == 0) chunks_.emplace_back().reserve(kChunkSize);
    chunks_.back().push_back(std::move(value));  // within its reserve: nothing moves
    ++size_;
  }

 private:
  std::vector<std::vector<T>> chunks_;
  size_t size_ = 0;
};

// A watched key on a node at one moment: absent, or its value (a string,
// or a hash's fields in their order) and the TTL it had left.
struct KeyState {
  std::string key;
  bool present = false;
  bool hash = false;
  std::string str;
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<int64_t> pttl_ms;  // none: no TTL (and always none when absent)

  static KeyState Absent(std::string key) {
    KeyState s;
    s.key = std::move(key);
    return s;
  }
  // The same value, whatever the TTL.
  bool SameValue(const KeyState& other) const {
    return present == other.present && hash == other.hash && str == other.str &&
           fields == other.fields;
  }
  bool operator==(const KeyState&) const = default;
};

// The commands workload's check of one reply (F13): what was sent, what
// came back, and what Redis gives (as redis-cli prints it, from the
// scenario).
struct ReplyCheck {
  Command command;
  Reply got;
  std::string expected;
};

// A command as a history stores it: its arguments back to back in one
// buffer. The view is valid while its History lives (adding ops does not
// invalidate it); a string_view it hands out, until the next command is
// recorded.
class CommandView {
 public:
  CommandView() = default;
  CommandView(const std::string* bytes, const std::vector<uint32_t>* ends, uint64_t begin,
              uint32_t first_end, uint32_t argc)
      : bytes_(bytes), ends_(ends), begin_(begin), first_end_(first_end), argc_(argc) {}
  size_t size() const { return argc_; }
  bool empty() const { return argc_ == 0; }
  std::string_view operator[](size_t i) const {
    const uint32_t* ends = ends_->data() + first_end_;
    const uint32_t from = i == 0 ? 0 : ends[i - 1];
    return std::string_view(bytes_->data() + begin_ + from, ends[i] - from);
  }
  // argv[0], as sent (any case): compare it with CommandNameIs.
  std::string_view name() const { return argc_ == 0 ? std::string_view() : (*this)[0]; }
  Command ToCommand() const;

 private:
  const std::string* bytes_ = nullptr;
  const std::vector<uint32_t>* ends_ = nullptr;  // each argument's end, from `begin_`
  uint64_t begin_ = 0;
  uint32_t first_end_ = 0;
  uint32_t argc_ = 0;
};

// The text of each kind of value, exactly as results.json has always shown
// it (docs/results.md).
//   "SET lock:x tok NX PX 5000" (FormatCommand's quoting)
std::string FormatCommand(const CommandView& cmd);
//   `KEY = "value" pttl 4999`, `KEY = {field: value} no ttl`, `KEY absent`;
//   strings longer than 40 bytes shortened to 37 and "..."
std::string FormatKeyState(const KeyState& state);
//   "lock:x", "lock:x (nested)"
std::string FormatStep(std::string_view key, bool nested);
//   "7", "7 (token 3)"
std::string FormatNumber(int64_t value, std::optional<int64_t> token);
//   ok: the reply; fail: "reply to CMD was GOT, Redis gives EXPECTED"
std::string FormatReplyCheck(const ReplyCheck& check, bool matched);

class History {
 public:
  static constexpr std::string_view kNemesis = "nemesis";

  History();  // actor 0 is the nemesis

  // A new actor (a thread, a node, ...). `owner` is the actor of the
  // process it belongs to (the main thread of a client process); -1: it is
  // a process of its own.
  int AddActor(std::string name, int owner = -1);
  int nemesis() const { return 0; }
  // The main actor of the process `actor` belongs to.
  int owner(int actor) const { return owners_[actor]; }
  int Find(std::string_view name) const;  // -1 when unknown
  const std::string& name(int actor) const { return names_[actor]; }

  // Recording: one function per kind of value (see OpF for which op
  // carries which). Each calls the listener and returns the new op.
  // A client's lock step (acquire, cs, release) or a limiter's request
  // (admit invoke) on `key`.
  const Op& AddStep(Nanos time, int actor, OpType type, OpF f, std::string_view key,
                    bool nested = false);
  // A Redis command sent to `node` (redis invoke): its bytes are copied
  // into the history's command buffer, so the caller keeps `cmd` to send;
  // an actor's command equal to its last one shares that one's bytes.
  const Op& AddCommand(Nanos time, int actor, int node, const Command& cmd);
  // The same for a shared command (never changed): when it is the one this
  // actor sent last as shared, its bytes are not compared again.
  const Op& AddCommand(Nanos time, int actor, int node, const SharedCommand& cmd);
  // The reply to it: ok, or info for a reply that never came in time. An
  // actor's reply equal to its last one shares that one's copy.
  const Op& AddReply(Nanos time, int actor, OpType type, int node, const Reply& reply);
  const Op& AddNumber(Nanos time, int actor, OpType type, OpF f, int64_t value,
                      std::optional<int64_t> token = std::nullopt);
  const Op& AddReplyCheck(Nanos time, int actor, OpType type, ReplyCheck check);
  // A fault, under the nemesis (type info).
  const Op& AddFault(Nanos time, OpF f, std::string description, int subject = -1);
  // A watched key's state on the node `node_actor`; `cause` is the client
  // thread whose command changed it, -1 when none did.
  const Op& AddState(Nanos time, int node_actor, OpType type, KeyState state, int cause = -1);
  // An adapter request (invoke) or its reply (ok), as the JSON line.
  const Op& AddAdapterMessage(Nanos time, int actor, OpType type, std::string json);
  // An op without a value.
  const Op& Add(Nanos time, int actor, OpType type, OpF f);

  // The values. Each REQUIRES the op to carry that kind (op.payload); a
  // mismatch is a bug and aborts.
  // The key of a lock step or admit invoke ("" for an op recorded without one).
  const std::string& key(const Op& op) const;
  CommandView command(const Op& op) const;
  const Reply& reply(const Op& op) const;
  int64_t number(const Op& op) const;
  std::optional<int64_t> token(const Op& op) const;  // a write's fencing token
  const ReplyCheck& reply_check(const Op& op) const;
  const KeyState& state(const Op& op) const;
  // A fault's description, an adapter's JSON line.
  const std::string& text(const Op& op) const;

  // The op's value as written out (the JSON "value", trace lines): "" for
  // an op without one.
  std::string ValueText(const Op& op) const;

  // Called after each Add with the new op's index (the fault triggers).
  // The listener may add ops itself.
  void SetListener(std::function<void(int64_t)> listener) { listener_ = std::move(listener); }

  // At most kMaxOps of them: an index is 32 bits (a run stops at the
  // cap, RunOptions::max_ops, before).
  static constexpr size_t kMaxOps = INT32_MAX;
  // The largest node an op can name (Op::node's 11 bits; a scenario has 9).
  static constexpr int kMaxNode = 1023;
  const OpLog& ops() const { return ops_; }
  // An op's place, found from its address (OpLog::IndexOf): -1 when it is
  // not one of this history's.
  int32_t IndexOf(const Op& op) const { return ops_.IndexOf(op); }
  size_t size() const { return ops_.size(); }

  // The ops that are neither a Redis command or reply nor an adapter
  // message, in history order: the lock steps, faults, node states and the
  // workload's. Most of a contended run is commands (71% of a sweep-10k
  // seed's ops), and most checks read none: they read these.
  class LockOps {
   public:
    class Iterator {
     public:
      Iterator(const OpLog* ops, const int32_t* at) : ops_(ops), at_(at) {}
      const Op& operator*() const { return (*ops_)[static_cast<size_t>(*at_)]; }
      const Op* operator->() const { return &**this; }
      // The op's place in the whole history.
      int32_t index() const { return *at_; }
      Iterator& operator++() {
        ++at_;
        return *this;
      }
      friend bool operator==(const Iterator& a, const Iterator& b) { return a.at_ == b.at_; }

     private:
      const OpLog* ops_;
      const int32_t* at_;
    };
    LockOps(const OpLog* ops, const std::vector<int32_t>* index) : ops_(ops), index_(index) {}
    Iterator begin() const { return Iterator(ops_, index_->data()); }
    Iterator end() const { return Iterator(ops_, index_->data() + index_->size()); }
    size_t size() const { return index_->size(); }
    // The i-th of them.
    const Op& operator[](size_t i) const { return (*ops_)[static_cast<size_t>((*index_)[i])]; }

   private:
    const OpLog* ops_;
    const std::vector<int32_t>* index_;
  };
  LockOps lock_ops() const { return LockOps(&ops_, &lock_ops_); }
  // How many Redis commands were recorded (redis invokes).
  int64_t commands_sent() const { return commands_sent_; }
  // Whether any recorded command is named `name` (any case, as
  // CommandNameIs): a scan of the distinct commands stored, not the ops.
  bool SentCommandNamed(std::string_view name) const;

 private:
  struct Number {
    int64_t value;
    std::optional<int64_t> token;
  };
  // Where a command is in the command buffer.
  struct CommandSlot {
    uint64_t begin;      // in command_bytes_
    uint32_t first_end;  // in command_ends_
    uint32_t argc;
  };
  template <typename Table, typename Value>
  static uint32_t Push(Table* table, Value&& value) {
    table->push_back(std::forward<Value>(value));
    return static_cast<uint32_t>(table->size() - 1);
  }
  // `actor`'s entry in a table by actor (the slot of its last value, say),
  // grown to hold it with `fill`.
  template <typename T>
  static T& LastOf(std::vector<T>* last, int actor, const T& fill) {
    const size_t i = static_cast<size_t>(actor);
    if (last->size() <= i) last->resize(i + 1, fill);
    return (*last)[i];
  }
  // Whether the command in `slot` has exactly `cmd`'s arguments.
  bool SameCommand(uint32_t slot, const Command& cmd) const;
  const Op& Append(Nanos time, int actor, OpType type, OpF f, Payload payload, uint32_t slot,
                   int node = -1, int subject = -1, bool nested = false);
  void Expect(const Op& op, Payload payload) const;

  std::vector<std::string> names_;
  std::vector<int> owners_;
  OpLog ops_;
  std::vector<int32_t> lock_ops_;  // lock_ops(): their indices
  int64_t commands_sent_ = 0;
  // The side tables. Stable, so that a reference to a value stays valid
  // while ops are added (a listener reads one op's value while the fault it
  // fires records another).
  StableTable<std::string> keys_;  // interned: a run has a key or two
  std::map<std::string, uint32_t, std::less<>> key_slots_;
  uint32_t last_key_slot_ = kNoSlot;  // the last step's key
  std::string command_bytes_;
  std::vector<uint32_t> command_ends_;
  std::vector<CommandSlot> commands_;
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  std::vector<uint32_t> last_command_;  // by actor: the slot of its last command
  // By actor: the last shared command it sent, and the slot it is in.
  struct LastShared {
    SharedCommand cmd;
    uint32_t slot = kNoSlot;
  };
  std::vector<LastShared> last_shared_;
  StableTable<Reply> replies_;
  std::vector<uint32_t> last_reply_;  // by actor: the slot of its last reply
  StableTable<Number> numbers_;
  StableTable<ReplyCheck> reply_checks_;
  StableTable<KeyState> states_;
  StableTable<std::string> texts_;
  std::function<void(int64_t)> listener_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_HISTORY_H_
