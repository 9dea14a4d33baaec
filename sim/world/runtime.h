// Runtime: the event loop both worlds share. It owns what is the same in the
// virtual and the real world: the processes (clients, Redis nodes, the
// nemesis), their clocks, their pauses, the history, the seeded random
// source, and an event queue ordered by (time, sequence) in integer
// nanoseconds, ties in FIFO order (as FoundationDB's sim2 and simcpp20).
//
// A world differs only in how time advances and how a command reaches a
// Redis node:
//   * VirtualWorld jumps true time to the next event and delivers commands to
//     in-process virtual Redis nodes over a simulated network;
//   * RealWorld waits (poll) for the wall clock or a socket, and sends
//     commands to redis-server processes with hiredis.
//
// A paused process runs nothing: any of its events that fall due while it is
// paused (a timer, a reply sitting in its socket) waits for the pause to end,
// in its original order.
#ifndef LOCKSIM_SIM_WORLD_RUNTIME_H_
#define LOCKSIM_SIM_WORLD_RUNTIME_H_

#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/history.h"
#include "sim/core/random.h"
#include "sim/core/reply.h"
#include "sim/core/task.h"
#include "sim/core/time.h"
#include "sim/world/chooser.h"

namespace locksim {

// A process's local clock: local = unix(true time) + offset + drift, where
// drift_ppm (parts per million) accrues from the moment the clock was set,
// so changing the drift mid-run does not make the clock jump.
struct ProcessClock {
  Nanos offset{0};
  int64_t drift_ppm = 0;
};

// Where a command's reply goes: the awaiting call (sim/world/process_env.cc).
// Receive runs as an event of the client process, once, unless the world
// drops the reply (the connection was abandoned, the client died).
class ReplySink {
 public:
  virtual void Receive(Reply&& reply) = 0;

 protected:
  ~ReplySink() = default;
};

class Runtime {
 public:
  using Callback = std::function<void()>;
  static constexpr uint64_t kMaxEventsPerInstant = 10'000'000;

  Runtime(uint64_t seed, Nanos unix_start);
  virtual ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Processes (what pauses, crashes and has a clock). Id 0 is the nemesis
  // (never paused). Each process has a main thread, recorded in the history
  // under the process's name; AddThread adds more (history actor ids).
  int AddProcess(std::string name);
  int AddThread(int process, std::string name);
  int nemesis() const { return 0; }
  const std::string& ProcessName(int process) const { return processes_[process].name; }
  // The history actor of a process's main thread.
  int MainActor(int process) const { return processes_[process].main_actor; }

  Nanos Now() const { return now_; }  // true time since the run started
  // That process's unix-epoch clock. Inline: a node reads it for every
  // command it runs.
  Nanos LocalNow(int process) const {
    const Process& p = processes_[process];
    return unix_start_ + now_ + p.clock.offset + p.drift_before +
           Drift(now_ - p.clock_set_at, p.clock.drift_ppm);
  }
  void SetClock(int process, ProcessClock clock);
  ProcessClock Clock(int process) const { return processes_[process].clock; }

  // Schedules fn on behalf of `process` at true time `at` (>= Now()). The
  // event belongs to the process's current incarnation, or to
  // `incarnation` if given: a crash drops every event of the incarnations
  // before it.
  void At(Nanos at, int process, Callback fn, int incarnation = -1);
  // As At, but ahead of every other event at the same instant, including
  // events a pause deferred to it (the nemesis records a resume before the
  // resumed process acts).
  void AtFirst(Nanos at, int process, Callback fn);
  void After(Nanos delay, int process, Callback fn, int incarnation = -1) {
    At(now_ + delay, process, std::move(fn), incarnation);
  }
  // As At, with the most common event: resuming a coroutine (a sleep
  // ending, a reply read). No callback to build.
  void Resume(Nanos at, int process, std::coroutine_handle<> h, int incarnation = -1);

  // The process runs nothing until true time `until`.
  void Pause(int process, Nanos until);
  bool IsPaused(int process) const;
  // A crash: the process's events and tasks are gone for good (its
  // threads' coroutines never resume) and it runs nothing until Restart,
  // which starts a new incarnation (the caller spawns its tasks again).
  void Crash(int process);
  void Restart(int process);
  bool IsCrashed(int process) const { return processes_[process].crashed; }
  int Incarnation(int process) const { return processes_[process].incarnation; }
  // Neither paused nor crashed: code of the process may act now.
  bool Runnable(int process) const { return !IsCrashed(process) && !IsPaused(process); }

  // A client's socket timeout: a command with no reply after this long
  // fails with an error reply (0: wait for ever, as redis-py does).
  void SetCallTimeout(Nanos timeout) { call_timeout_ = timeout; }
  Nanos call_timeout() const { return call_timeout_; }
  // The client gave up on its connection to `node` (a timeout): the world
  // closes it, so nothing still in flight on it is delivered, and the
  // next command opens a new one.
  virtual void Abandon(int actor, int node) {
    (void)actor;
    (void)node;
  }

  // Starts `task` as a top-level task of `process` at true time `at`. A
  // daemon task (a background thread) does not keep the run going.
  void Spawn(int process, Nanos at, Task<void> task, bool daemon = false,
             int incarnation = -1);

  // Keeps `object` alive as long as the runtime (and its tasks) lives: the
  // Envs of background threads.
  void Adopt(std::shared_ptr<void> object) { adopted_.push_back(std::move(object)); }
  // A new thread id for `process` (the main thread is 1).
  int NextThreadId(int process) { return ++processes_[process].threads; }

  // Runs until every spawned task has finished or true time reaches
  // `deadline`, whichever is first; with `until_deadline`, runs every event
  // before `deadline` even when no task is left (background work such as
  // replication and cron keeps going).
  void Run(Nanos deadline, bool until_deadline = false);
  // Between events, every `every` events, Run calls `monitor`; when it
  // returns false, the run stops there as it would at its deadline (a
  // progress line, a cap on the history's size). It must not touch the
  // simulation: the run is the same with or without it until it stops it.
  void SetMonitor(uint64_t every, std::function<bool()> monitor) {
    monitor_every_ = every;
    monitor_ = std::move(monitor);
  }
  // The run also stops, between events, once the history holds `ops`
  // operations (0: no cap): a long run's memory stays bounded.
  void SetHistoryCap(size_t ops) { history_cap_ = ops; }
  // Whether the monitor or the history cap stopped the run.
  bool stopped_by_monitor() const { return stopped_by_monitor_; }

  // Transport, implemented by each world: deliver `cmd` from thread
  // `actor` of process `client` to Redis node `node` over that thread's own
  // connection (as a Jedis pool gives each thread its own; WATCH and MULTI
  // state lives on it), and hand the reply to `sink` (as an event of
  // `client`). `sink` must live until then, or until the client's
  // incarnation ends.
  virtual void Send(int client, int actor, int node, Command cmd, ReplySink* sink) = 0;
  // The same for a command shared with the sender (Env::Call of a
  // SharedCommand): a world that serves it where it is overrides this.
  virtual void SendShared(int client, int actor, int node, SharedCommand cmd, ReplySink* sink) {
    Send(client, actor, node, Command(*cmd), sink);
  }
  virtual int NodeCount() const = 0;

  // Events waiting in the queue (what a long run keeps in memory besides
  // its history).
  size_t PendingEvents() const { return queue_.size(); }

  History& history() { return history_; }
  const History& history() const { return history_; }

  // Commands a world has served, kept (a few) with their strings' buffers
  // for the next copy a client sends (ProcessEnv::CopyToSend); an empty
  // command when none is kept.
  void GiveBackCommand(Command cmd) {
    if (served_commands_.size() < kServedCommandsKept) served_commands_.push_back(std::move(cmd));
  }
  Command TakeServedCommand() {
    if (served_commands_.empty()) return {};
    Command cmd = std::move(served_commands_.back());
    served_commands_.pop_back();
    return cmd;
  }
  // Random streams, all derived from the run's seed: one for the network
  // (latencies), and one per process, named after it (a client's tokens, a
  // node's expiry sampling). Separate streams keep one change (an extra
  // replica, one more cron tick) from shifting every later draw, which
  // keeps shrunk scenarios replaying the same way.
  Random& network_random() { return random_; }
  Random& process_random(int process) { return processes_[process].random; }
  // The choices the seed does not make alone (sim/world/chooser.h): null,
  // the default, is random mode (latencies as drawn, ties in FIFO order);
  // a chooser set before Run sees every message and every tie. Not owned.
  void SetChooser(Chooser* chooser) { chooser_ = chooser; }
  Chooser* chooser() const { return chooser_; }

  // What a developer needs to replay this run when an invariant breaks.
  void SetReplayHint(std::string hint) { replay_hint_ = std::move(hint); }
  // "seed N; replay: <hint>", for a message that stops a run.
  std::string ReplayText() const {
    return "seed " + std::to_string(seed_) + "; replay: " +
           (replay_hint_.empty() ? std::string("(no scenario)") : replay_hint_);
  }
  // Aborts loudly, naming the seed and the command that replays the run.
  [[noreturn]] void InvariantBroken(const std::string& what) const;

 protected:
  // Advance true time towards `t`. The virtual world jumps there; the real
  // world waits for the clock or for I/O, which may schedule events and
  // return early. Must leave now_ <= t only if events were scheduled.
  virtual void AdvanceTo(Nanos t) = 0;
  // The unix time true time 0 maps to (a real world restarting its clock).
  void SetUnixStart(Nanos unix_start) { unix_start_ = unix_start; }
  // A world's own event, such as a message arriving: at `at`, as an event
  // of `process`, OnWorldEvent(tag) runs; if the event dies with its
  // process (a crash), DropWorldEvent(tag) instead. The world keeps what
  // `tag` stands for, so an event is a few plain words, not a callback.
  void AtWorldEvent(Nanos at, int process, uint32_t tag, int incarnation = -1);
  virtual void OnWorldEvent(uint32_t tag) { (void)tag; }
  virtual void DropWorldEvent(uint32_t tag) { (void)tag; }
  // For ties (chooser.h): the stream a world event belongs to within its
  // process (0: the process's own events, timers and callbacks; a
  // message: its connection), and the stream's name ("A->redis0").
  virtual uint64_t WorldEventStream(uint32_t tag) const {
    (void)tag;
    return 0;
  }
  virtual std::string WorldEventStreamName(uint32_t tag) const {
    (void)tag;
    return {};
  }

  Nanos now_{0};

 private:
  // Events run in (at, due, seq) order. `due` is when the event first fell
  // due: an event deferred by a pause runs at the pause's end with its old
  // `due`, so it keeps its place before anything that was due later.
  // An event is a tagged value of plain words, kept in the queue itself: a
  // coroutine to resume, a world event, or (for the rarer kinds: faults,
  // cron, timeouts) a callback, which waits in `callbacks_` and alone costs
  // an allocation, so that ordering the queue never moves a std::function
  // (moving the callbacks was a fifth of a virtual run, callgrind). A
  // queue entry is 48 bytes; a run's queue holds a handful of them (seven
  // in bench/scenarios/sweep-10k.json).
  enum class Kind : uint8_t { kCallback, kResume, kWorld };
  struct Body {
    int process = 0;
    int incarnation = 0;
    Kind kind = Kind::kCallback;
    uint32_t tag = 0;                 // kWorld: the world's tag; kCallback: into callbacks_
    std::coroutine_handle<> handle;   // kResume
  };
  struct Key {
    Nanos at;
    Nanos due;
    uint64_t seq;
    Body body;
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const { return Than(a.at, a.due, a.seq, b); }
    // Whether a key of these fields runs after `b`.
    static bool Than(Nanos at, Nanos due, uint64_t seq, const Key& b) {
      if (at != b.at) return at > b.at;
      if (due != b.due) return due > b.due;
      return seq > b.seq;
    }
  };
  void Push(Nanos at, Nanos due, int process, int incarnation, Kind kind, uint32_t tag,
            std::coroutine_handle<> handle);
  // Pushes a callback event: `fn` waits in a slot of callbacks_.
  void PushCallback(Nanos at, Nanos due, int process, int incarnation, Callback fn);
  // Moves a callback out of its slot and frees the slot.
  Callback TakeCallback(uint32_t slot);
  void CheckNotPast(Nanos at) const;
  // What a clock drifting by `ppm` per million gained over `elapsed`.
  static Nanos Drift(Nanos elapsed, int64_t ppm) {
    if (ppm == 0) return Nanos{0};  // the usual clock
    return DriftOf(elapsed, ppm);
  }
  static Nanos DriftOf(Nanos elapsed, int64_t ppm);  // a 128-bit division
  void AddProcessRecord(std::string name, int actor);
  // Puts a key in its place in the queue.
  void PushKey(const Key& key);
  void PushKey(Nanos at, Nanos due, uint64_t seq, int process, int incarnation, Kind kind,
               uint32_t tag, std::coroutine_handle<> handle);
  void PopNext();
  // Takes the key at `i` out of the queue (a tie's pick).
  Key TakeKeyAt(size_t i);
  // Once the queue is a heap: puts `key` at hole `i`, moving it up or down
  // to its place.
  void SiftUp(size_t i, Key key);
  void SiftDown(size_t i, Key key);
  bool AllTasksDone() const { return live_tasks_ == 0; }
  // With a chooser: `k` (popped, its process able to run) and the events of
  // its process due at the same instant on other streams are a tie; the
  // chooser's pick comes out of the queue and `k` goes back.
  Key BreakTie(Key k);
  // A top-level task, counted among the live ones until it returns (or
  // its incarnation dies): the run's end is a counter, not a scan of every
  // task at every instant (2 000 clients made that the run's cost).
  Task<void> Tracked(Task<void> task, int process, int incarnation);

  History history_;
  Random random_;
  Chooser* chooser_ = nullptr;
  uint64_t seed_;
  Nanos unix_start_;
  std::string replay_hint_;
  uint64_t next_seq_ = 0;
  // Livelock guard: events run at the current instant.
  Nanos instant_{-1};
  uint64_t events_at_instant_ = 0;
  // The event queue (PushKey, PopNext). While it holds a few keys, as a run
  // mostly does, it is a vector sorted latest first: a push scans from the
  // back, where the next event is, and moves the keys after its place; a
  // pop takes the back (a heap's push and pop were a tenth of a seed,
  // callgrind; with 40 clients the vector is still the cheaper). Past
  // kSortedMax keys (a run of hundreds of clients) it becomes a 4-ary heap
  // under Later for the rest of the run. Keys are unique (seq), so events
  // come out in the same order either way.
  static constexpr size_t kSortedMax = 128;
  static constexpr size_t kArity = 4;
  bool heap_ = false;
  std::vector<Key> queue_;
  const Key& NextKey() const { return heap_ ? queue_.front() : queue_.back(); }
  std::vector<Callback> callbacks_;        // of the kCallback events
  std::vector<uint32_t> free_callbacks_;  // unused slots of callbacks_
  struct Process {
    std::string name;
    int main_actor = 0;
    ProcessClock clock;
    Nanos clock_set_at{0};  // true time of the last SetClock
    Nanos drift_before{0};  // drift accrued under earlier settings
    Nanos paused_until{0};
    bool crashed = false;
    int incarnation = 0;
    int threads = 1;
    Random random{0};
    int64_t live_tasks = 0;  // non-daemon tasks of this incarnation not done
  };
  std::vector<Process> processes_;
  struct Spawned {
    Task<void> task;
    bool daemon;
    int process;
    int incarnation;
  };
  std::vector<Spawned> tasks_;
  int64_t live_tasks_ = 0;  // summed over the processes
  uint64_t monitor_every_ = 0;
  std::function<bool()> monitor_;
  bool stopped_by_monitor_ = false;
  size_t history_cap_ = 0;
  uint64_t events_since_monitor_ = 0;
  std::vector<std::shared_ptr<void>> adopted_;
  Nanos call_timeout_{0};
  static constexpr size_t kServedCommandsKept = 64;
  std::vector<Command> served_commands_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_RUNTIME_H_
