// VirtualRedis: an in-process model of one Redis 7.0 node, for the commands
// locksim's lock variants use. It answers with the same replies, reply types
// and error strings as redis-server 7.0 (Debian 12's), which the differential
// tests check against a real server.
//
// The node has no clock of its own: every command is executed at a unix
// millisecond reading supplied by the caller (the node's own, possibly
// skewed, clock), and a key is expired when now > when, as in redis
// db.c keyIsExpired(). Expiry is lazy, on access, plus an active cycle run by
// Cron(); time is frozen for the length of a command, a script or EXEC.
//
// Files mirror Redis's: commands.cc (the command table), db.cc (keyspace,
// generic key commands), t_string.cc, t_hash.cc, expire.cc, multi.cc
// (MULTI/EXEC/WATCH), pubsub.cc, script_lua.cc (EVAL and the redis.* Lua
// API), replication.cc (propagation, replica role, persistence).
#ifndef LOCKSIM_SIM_VREDIS_SERVER_H_
#define LOCKSIM_SIM_VREDIS_SERVER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/persistence.h"
#include "sim/core/random.h"
#include "sim/core/reply.h"

namespace locksim {

class LuaScripting;
class ScriptStatePool;

class VirtualRedis {
 public:
  using ConnId = int;
  static constexpr ConnId kDefaultConn = 0;

  VirtualRedis();
  ~VirtualRedis();
  VirtualRedis(const VirtualRedis&) = delete;
  VirtualRedis& operator=(const VirtualRedis&) = delete;

  // Client connections: each has its own MULTI, WATCH and SUBSCRIBE state.
  // Connection kDefaultConn always exists.
  ConnId Connect();
  void Disconnect(ConnId conn);

  // Executes one command from `conn` at unix time `now_ms` (the node clock).
  Reply Execute(ConnId conn, const Command& argv, int64_t now_ms);
  Reply Execute(const Command& argv, int64_t now_ms) {
    return Execute(kDefaultConn, argv, now_ms);
  }
  // Out-of-band messages for `conn` (pub/sub), oldest first, and clears them.
  std::vector<Reply> TakePushes(ConnId conn);
  // Whether writes are propagated at all (the replication stream, the
  // AOF). Off when nothing would read them, a master with no replica and no
  // AOF, as Redis itself skips propagation then: building a rewritten
  // command per write for nobody was a third of a plain command's cost.
  void SetPropagation(bool on) { propagating_ = on; }
  // Whether any connection has a push waiting (asked after every command:
  // there rarely is one).
  // Counted as they are queued and taken: the world asks after every
  // command, and a scan of every connection was most of a run with 2 000
  // clients.
  bool HasPushes() const { return queued_pushes_ > 0; }
  // Writes so far (server.dirty: every command that changes a key adds to
  // it, which is also what decides whether it propagates). Unchanged across
  // a command: the command changed no key.
  int64_t dirty() const { return dirty_; }

  // Periodic work, as serverCron at hz 10: call every 100 ms of node time.
  // Runs the active expiry cycle, the AOF fsync (every second) and RDB
  // snapshots. Draws on `random` to sample keys, as Redis does.
  static constexpr int64_t kCronPeriodMs = 100;
  void Cron(int64_t now_ms, Random& random);
  // Whether Cron has anything to do (keys to expire, an AOF to fsync, a
  // snapshot to take): an idle node needs no ticks, which keeps long quiet
  // stretches of virtual time free.
  bool HasCronWork() const;

  // ---- Replication (replication.cc) ----
  // Write effects for replicas, in order, as a master propagates them: with
  // absolute expiry times (SET ... PXAT, PEXPIREAT), expirations as DEL,
  // scripts and transactions by their effects inside MULTI/EXEC.
  std::vector<Command> TakeReplicationStream();
  bool HasReplicationStream() const { return !repl_stream_.empty(); }
  // Turns this node into a replica (writes from clients get READONLY; keys
  // are not expired locally, only hidden) or back into a master.
  void SetReplica(bool replica);
  bool is_replica() const { return replica_; }
  // Applies one command of the master's stream.
  void ApplyReplicated(const Command& argv, int64_t now_ms);
  // Full resynchronisation: this node's dataset becomes a copy of `master`'s.
  void LoadFrom(const VirtualRedis& master);

  // ---- Persistence (replication.cc) ----
  void SetPersistence(Persistence policy, int64_t rdb_interval_ms = 60000);
  // The process dies: memory is lost, and so is whatever the persistence
  // policy had not made durable. A process crash (kill -9) keeps what was
  // written to the AOF file, fsynced or not (it sits in the OS page cache);
  // a power loss also loses what was not fsynced. Connections are dropped.
  void Crash(bool power_loss = false);
  // The process starts again and reloads what was durable.
  void Restart(int64_t now_ms);

  // Introspection for tests and reports.
  size_t KeyCount() const { return db_.size(); }
  size_t KeysWithTtl() const { return expires_.size(); }
  // The key's value if it is a live string at `now_ms` (no side effects).
  const std::string* PeekString(const std::string& key, int64_t now_ms) const;
  int64_t PeekExpire(const std::string& key) const;
  // What a watcher saw of a key: absent (also when logically expired), or
  // its value and absolute expiry (-1: none).
  struct KeySeen {
    bool live = false;
    bool hash = false;
    std::string str;
    std::vector<std::pair<std::string, std::string>> fields;
    int64_t expire_ms = -1;
    bool operator==(const KeySeen&) const = default;
  };
  enum class KeyChange { kNone, kExpiry, kValue };
  // How the key at `now_ms` differs from *seen (kValue: its value, or
  // whether it is there; kExpiry: only its expiry), and *seen becomes it.
  // Copies nothing when nothing changed: a check per command can afford it.
  KeyChange LookAtKey(const std::string& key, int64_t now_ms, KeySeen* seen) const;
  // A connection's state: inside MULTI, and how many channels it is
  // subscribed to (false / 0 for an unknown connection).
  bool InMulti(ConnId conn) const;
  size_t Subscriptions(ConnId conn) const;

  // A script that does not end. Redis stays busy until SCRIPT KILL; a
  // simulation must end, so by default a script is stopped after
  // `limit` Lua instructions with an error reply ("ran ... without
  // ending"), and TakeRunawayScript names it (the virtual world then stops
  // the run, exit 3). `locksim serve` sets no limit and a handler instead, called
  // every 100 000 instructions of a running script with the count so far:
  // it answers other clients BUSY and passes SCRIPT KILL on
  // (KillRunningScript).
  static constexpr int64_t kDefaultScriptInstructionLimit = 500'000'000;
  void SetScriptInstructionLimit(int64_t limit) { script_instruction_limit_ = limit; }
  // Bytes the Lua state may hold (0, the default: no limit, as Redis).
  // Past it an allocation fails and the script ends with Lua's "not enough
  // memory" error. For the fuzzers: one string.rep or a doubling loop asks
  // for gigabytes in a few instructions.
  void SetScriptMemoryLimit(int64_t bytes) { script_memory_limit_ = bytes; }
  // Where this server's Lua state comes from and goes back to (null: made
  // and closed with it). The pool must outlive the server.
  void SetScriptStatePool(ScriptStatePool* pool) { script_pool_ = pool; }
  void SetBusyScriptHandler(std::function<void(int64_t instructions)> handler) {
    busy_handler_ = std::move(handler);
  }
  Reply KillRunningScript(bool force = false);
  bool ScriptRunning() const;
  // The script the instruction limit stopped in the last command ("script
  // <sha>: <its first line>"), once; nullopt if none was.
  std::optional<std::string> TakeRunawayScript() { return std::exchange(runaway_script_, std::nullopt); }

 private:
  friend class LuaScripting;

  struct Object {
    enum class Type { kString, kHash };
    Type type = Type::kString;
    std::string str;
    // Field order as a small hash (listpack) keeps it: insertion order.
    std::vector<std::pair<std::string, std::string>> hash;
    int64_t expire_ms = -1;  // absolute unix ms; -1: no TTL
    // Its place in expires_ while it has a TTL (-1: none). Valid only for
    // the objects of db_: a copy (a snapshot) gets its own from
    // RebuildExpiresIndex.
    int64_t expire_slot = -1;
  };

  struct Connection {
    bool in_multi = false;
    bool dirty_cas = false;   // a watched key changed: EXEC returns nil
    bool dirty_exec = false;  // a command failed to queue: EXECABORT
    std::vector<Command> queued;
    unsigned queued_flags = 0;  // the union of the queued commands' flags
    // Watched keys, with whether each was already expired when watched.
    std::map<std::string, bool> watched;
    std::set<std::string> channels;
    std::vector<Reply> pushes;
    std::string name;  // CLIENT SETNAME
  };

  // Command flags, a subset of redis's CMD_* flags.
  enum Flags : unsigned {
    kWrite = 1 << 0,       // modifies the keyspace: READONLY on replicas, propagated
    kReadOnly = 1 << 1,
    kNoScript = 1 << 2,    // not allowed from scripts
    kNoMulti = 1 << 3,     // runs at once even inside MULTI (EXEC, DISCARD, WATCH...)
    kPubSubOk = 1 << 4,    // allowed in the subscribed state
    kStale = 1 << 5,       // allowed on a replica (reads, admin)
    kRejectInMulti = 1 << 6,  // CMD_NO_MULTI: refused inside MULTI (SHUTDOWN)
  };

  using Handler = Reply (VirtualRedis::*)(const Command&);
  struct CommandSpec {
    std::string_view name;  // lower case, as Redis's "fullname"
    int arity;              // Redis convention: > 0 exact, < 0 at least -arity
    unsigned flags;
    Handler handler;
  };
  static const CommandSpec* Lookup(std::string_view name);  // commands.cc
  static std::span<const CommandSpec> Commands();            // the table
  // Lookup, first among the last few names this node looked up, by their
  // exact bytes: a client sends the same few commands again and again, and
  // Lookup folds and hashes every name (a sixth of a plain command).
  const CommandSpec* LookupRecent(std::string_view name);

  // Runs one command for the current connection: checks, MULTI queueing,
  // then Call(). `from_script` selects the error wording Redis uses inside
  // scripts. `spec` is Lookup(argv[0]) (null: unknown, or no arguments),
  // which redis.call has looked up already for its own check.
  Reply Dispatch(const Command& argv, bool from_script, const CommandSpec* spec);
  // Executes a looked-up command and propagates its effects (server.c call()).
  Reply Call(const CommandSpec& spec, const Command& argv);

  // ---- db.cc ----
  Object* LookupRead(const std::string& key);   // expires (or hides) lazily
  Object* LookupWrite(const std::string& key);  // the same, for writers
  bool KeyIsExpired(const Object& o) const {
    return o.expire_ms >= 0 && now_ms_ > o.expire_ms;
  }
  // Expires the key at `it` if needed; true if it is (logically) gone. On
  // a master it is then erased, and `it` is no longer valid.
  bool ExpireIfNeeded(std::unordered_map<std::string, Object>::iterator it);
  // deleteExpiredKeyAndPropagate(): removes an expired key, touches its
  // watchers and propagates a DEL.
  void DeleteExpiredKey(std::unordered_map<std::string, Object>::iterator it);
  Object& SetKey(const std::string& key, Object value, bool keep_ttl);
  bool DeleteKey(const std::string& key);
  // Sets or clears (-1) a live key's expiry, keeping the expires index.
  // REQUIRES: `o` is db_'s object of `key`; `db_key`, if given, is db_'s
  // own copy of the key (saves a lookup when a TTL is added).
  void SetExpire(const std::string& key, Object& o, int64_t when_ms,
                 const std::string* db_key = nullptr);
  // Every removal from db_ goes through here (keeps the expires index).
  void RemoveKey(std::unordered_map<std::string, Object>::iterator it);
  void ClearDb();
  void RebuildExpiresIndex();
  std::vector<std::string> SortedKeys() const;
  // Marks every connection watching `key` (touchWatchedKey).
  void SignalModifiedKey(const std::string& key);
  // Before the whole keyspace is emptied (touchAllWatchedKeysInDb).
  void SignalFlushed();
  Reply DelCommand(const Command& argv);
  Reply UnlinkCommand(const Command& argv);
  Reply ExistsCommand(const Command& argv);
  Reply TypeCommand(const Command& argv);
  Reply DbsizeCommand(const Command& argv);
  Reply FlushallCommand(const Command& argv);
  // ---- server.cc ----
  Reply PingCommand(const Command& argv);
  Reply EchoCommand(const Command& argv);
  // What client libraries send as they connect: CLIENT and HELLO
  // (networking.cc, as networking.c), SELECT and FLUSHDB (db.cc), INFO,
  // TIME, COMMAND and CONFIG GET (server.cc).
  Reply ClientCommand(const Command& argv);
  Reply HelloCommand(const Command& argv);
  Reply SelectCommand(const Command& argv);
  Reply FlushdbCommand(const Command& argv);
  Reply FlushDb(const Command& argv);  // what FLUSHALL and FLUSHDB share
  Reply InfoCommand(const Command& argv);
  Reply TimeCommand(const Command& argv);
  Reply CommandCommand(const Command& argv);
  Reply ConfigCommand(const Command& argv);
  Reply ShutdownCommand(const Command& argv);

  // ---- t_string.cc ----
  Reply GetCommand(const Command& argv);
  Reply SetCommand(const Command& argv);
  Reply SetnxCommand(const Command& argv);
  Reply GetsetCommand(const Command& argv);
  Reply GetdelCommand(const Command& argv);
  Reply IncrCommand(const Command& argv);
  Reply DecrCommand(const Command& argv);
  Reply IncrbyCommand(const Command& argv);
  // getGenericCommand(): the reply GET would give, or WRONGTYPE.
  Reply GetGeneric(const std::string& key);
  Reply IncrDecr(const std::string& key, int64_t incr);
  // ---- t_hash.cc ----
  Object* HashLookupWriteOrCreate(const std::string& key);
  Reply HsetCommand(const Command& argv);
  Reply HgetCommand(const Command& argv);
  Reply HdelCommand(const Command& argv);
  Reply HexistsCommand(const Command& argv);
  Reply HincrbyCommand(const Command& argv);
  Reply HgetallCommand(const Command& argv);
  Reply HlenCommand(const Command& argv);
  // ---- expire.cc ----
  Reply ExpireCommand(const Command& argv);
  Reply PexpireCommand(const Command& argv);
  Reply ExpireatCommand(const Command& argv);
  Reply PexpireatCommand(const Command& argv);
  Reply ExpireGeneric(const Command& argv, int64_t basetime_ms, bool seconds);
  Reply TtlCommand(const Command& argv);
  Reply PttlCommand(const Command& argv);
  Reply TtlGeneric(const Command& argv, bool output_ms);
  Reply PersistCommand(const Command& argv);
  // ---- multi.cc ----
  Reply MultiCommand(const Command& argv);
  Reply ExecCommand(const Command& argv);
  Reply DiscardCommand(const Command& argv);
  Reply WatchCommand(const Command& argv);
  Reply UnwatchCommand(const Command& argv);
  void DiscardTransaction();
  // execCommandAbort(): an EXEC rejected before it ran discards the
  // transaction and names the reason.
  Reply ExecCommandAbort(std::string_view error);
  void UnwatchAll();
  bool IsWatchedKeyExpired();
  // ---- pubsub.cc ----
  Reply SubscribeCommand(const Command& argv);
  Reply UnsubscribeCommand(const Command& argv);
  // `conn` left `channel`: off its subscribers.
  void Unsubscribed(ConnId conn, const std::string& channel);
  Reply PublishCommand(const Command& argv);
  // ---- script_lua.cc ----
  Reply EvalCommand(const Command& argv);
  Reply EvalShaCommand(const Command& argv);
  Reply EvalRoCommand(const Command& argv);
  Reply EvalShaRoCommand(const Command& argv);
  Reply ScriptCommand(const Command& argv);
  // ---- replication.cc ----
  // Queues an effect for replicas and the AOF (inside a script or EXEC it
  // waits for FlushEffects, which wraps several in MULTI/EXEC).
  // `targets`: kPropagateAof | kPropagateRepl (redis.set_repl() narrows a
  // script's own commands; 0 drops the effect).
  static constexpr unsigned kPropagateAof = 1, kPropagateRepl = 2;
  static constexpr unsigned kPropagateAll = kPropagateAof | kPropagateRepl;
  void Propagate(Command argv, unsigned targets = kPropagateAll);
  // Queues a pub/sub push on connection `c` (counted for HasPushes).
  void QueuePush(Connection* c, Reply push);
  void FlushEffects();
  void Emit(Command argv, unsigned targets = kPropagateAll);
  // Replaces the command the current call propagates (e.g. SET EX -> PXAT).
  void RewritePropagation(Command argv) { rewritten_ = std::move(argv); }
  void ActiveExpireCycle(Random& random);
  void PersistenceCron();

  // The keyspace. Hash-map order never reaches a reply: commands that list
  // keys are not modelled, and active expiry walks or samples `expires_` by
  // index.
  std::unordered_map<std::string, Object> db_;
  // The keys with a TTL, for random sampling: each its key and object in
  // db_ (whose elements never move while they exist), and the object knows
  // its place here, so that adding and removing a TTL costs no lookup.
  struct Expiring {
    const std::string* key;
    Object* object;
  };
  std::vector<Expiring> expires_;

  std::map<ConnId, Connection> conns_;
  // Each channel's subscribers, by connection id (redis's pubsub_channels):
  // PUBLISH reaches them without a walk of every connection, which a long
  // Redisson run (a connection per watchdog thread, never closed) made
  // quadratic.
  std::map<std::string, std::set<ConnId>, std::less<>> subscribers_;
  ConnId next_conn_ = 1;
  Connection* conn_ = nullptr;  // the connection of the command being run
  ConnId conn_id_ = -1;         // and its id
  int64_t now_ms_ = 0;          // frozen for the command being run
  bool in_script_ = false;
  unsigned script_propagate_ = kPropagateAll;  // redis.set_repl() of the running script
  int64_t script_instruction_limit_ = kDefaultScriptInstructionLimit;  // 0: none
  int64_t script_memory_limit_ = 0;                                     // 0: none
  ScriptStatePool* script_pool_ = nullptr;
  std::function<void(int64_t)> busy_handler_;
  std::optional<std::string> runaway_script_;
  bool in_exec_ = false;
  bool loading_ = false;        // replaying the AOF or a replication stream

  int effects_depth_ = 0;                // > 0 inside a script or EXEC
  bool replaying_aof_ = false;
  ConnId master_conn_ = -1;              // the replication link, on a replica
  int64_t dirty_ = 0;                    // writes so far (server.dirty)
  int64_t queued_pushes_ = 0;
  bool propagating_ = true;
  // How many connections WATCH each key (redis's db->watched_keys, counted).
  std::unordered_map<std::string, int64_t> watchers_;            // pushes waiting on all connections
  std::optional<Command> rewritten_;     // see RewritePropagation
  struct Effect {
    Command argv;
    unsigned targets;
  };
  std::vector<Effect> pending_effects_;  // of the current script / EXEC
  std::vector<Command> repl_stream_;     // for TakeReplicationStream
  bool replica_ = false;

  Persistence persistence_ = Persistence::kNone;
  int64_t rdb_interval_ms_ = 60000;
  std::vector<Command> aof_;  // every effect, in order
  size_t aof_synced_ = 0;     // how much of aof_ is on disk
  int64_t last_fsync_ms_ = 0;
  int64_t last_save_ms_ = 0;
  int64_t dirty_at_last_save_ = 0;
  std::unordered_map<std::string, Object> rdb_;  // the last snapshot

  std::unique_ptr<LuaScripting> lua_;

  struct RecentName {
    std::array<char, 16> bytes{};  // no command's name is longer
    size_t size = 0;
    const CommandSpec* spec = nullptr;  // null: an empty entry
  };
  std::array<RecentName, 4> recent_names_{};
  size_t recent_next_ = 0;  // the entry the next new name replaces
};

// Shared reply texts, as in Redis's server.c shared objects.
inline constexpr std::string_view kSyntaxErr = "ERR syntax error";
inline constexpr std::string_view kNotIntegerErr =
    "ERR value is not an integer or out of range";
inline constexpr std::string_view kWrongTypeErr =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kOverflowErr = "ERR increment or decrement would overflow";

// addReplyErrorFormat(): an error whose text includes user input, with any
// CR or LF turned into a space so that it cannot break the protocol.
Reply FormatError(std::string text);
// addReplyErrorArity(): "ERR wrong number of arguments for 'name' command".
Reply ArityError(std::string_view name);

// string2ll() from Redis util.c: strict base-10 int64, no spaces, no '+'.
bool StringToInt64(std::string_view s, int64_t* out);
// Case-insensitive comparison of an argument with an upper-case keyword.
// Inline, with ASCII folding as toupper() in the C locale and no libc call
// per character: SET checks its options against it, several per option.
inline bool IsKeyword(std::string_view arg, std::string_view upper) {
  if (arg.size() != upper.size()) return false;
  for (size_t i = 0; i < arg.size(); ++i) {
    const char a = arg[i];
    if ((a >= 'a' && a <= 'z' ? static_cast<char>(a - 'a' + 'A') : a) != upper[i]) return false;
  }
  return true;
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_VREDIS_SERVER_H_
