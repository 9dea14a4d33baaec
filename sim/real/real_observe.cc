// RealWorld's observer: the `state` ops of the watched keys on real nodes,
// typed as the virtual world records them (KeyState: the key, its value and
// PTTL, or absent), so that the checker finds foreign writes (F2, F5, F6) on
// real servers too.
//
// Every server runs with notify-keyspace-events KA. Per node, one
// connection subscribes to __keyspace@0__:<key>. An event that says the
// whole state (del, expired, evicted: the key is gone) is recorded as it
// comes. A `set` that the harness's own SET ... PX explains is recorded from
// that command (Explained, below). Any other is read: another connection
// runs a script (atomic, and allowed on replicas) that reads the key's
// type, value and TTL and publishes them on a channel the subscription
// also listens to, so that the reading arrives among the key's events in
// the order the node ran them. One reading for all the events of a key
// that one turn of the event loop read (a SET ... PX announces itself
// twice, set and expire), after that turn, so the reading follows every
// change those events announced. It lands a round trip after the change,
// so a state that lasted less than that may be seen already replaced; the
// history is still a sequence of states the node really had, in order.
//
// Who changed it: a client's command to that node that was in flight when
// the event came (or answered within the last few milliseconds), whose name
// can make that change; when several could, the one whose arguments hold
// the new value (a token), or for a deletion the old one (compare-and-
// delete), else the earliest sent. Expiry and eviction are nobody's.
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <poll.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/core/interrupt.h"
#include "sim/real/hiredis_reply.h"
#include "sim/real/real_world.h"

namespace locksim {
namespace {

// A reading of a key: its type, value and PTTL, published to the key's
// state channel, which the node's observer subscribes to beside the key's
// keyspace channel. A node writes a subscriber's messages in the order it
// ran the commands that published them, so the reading comes among the
// key's events exactly where it was taken. Its answer on the reader's own
// connection would not: the node flushes its clients' output in no order
// that the harness can rely on, and an answer read before the events of
// commands that ran before it (a `del`, then the next holder's `set`) put a
// state ahead of the absence that preceded it (a false foreign write under
// Redlock's node timeouts on a loaded machine, once in some 300 runs).
// REPL_NONE: a master propagates PUBLISH to its replicas, whose observers
// must not read this node's state as theirs.
constexpr char kSnapshotScript[] =
    "local t = redis.call('TYPE', KEYS[1])['ok'] "
    "local v, p = '', -2 "
    "if t ~= 'none' then "
    "if t == 'string' then v = redis.call('GET', KEYS[1]) "
    "elseif t == 'hash' then v = redis.call('HGETALL', KEYS[1]) end "
    "p = redis.call('PTTL', KEYS[1]) end "
    "redis.set_repl(redis.REPL_NONE) "
    "return redis.call('PUBLISH', ARGV[1], cmsgpack.pack({ARGV[2], t, v, p}))";

constexpr std::string_view kKeyspacePrefix = "__keyspace@0__:";
constexpr std::string_view kStatePrefix = "__locksim_state__:";

constexpr Nanos kRecentReply = std::chrono::milliseconds(5);

// Whether `name` is one of `names` (CommandNameIs: any case).
bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(),
                     [&](std::string_view n) { return CommandNameIs(name, n); });
}

// Whether a command named `name` can cause keyspace event `event`.
bool CanCause(std::string_view name, const std::string& event) {
  if (OneOf(name, {"EVAL", "EVALSHA", "EXEC", "FCALL"})) return true;
  if (event == "del") return OneOf(name, {"DEL", "UNLINK", "GETDEL"});
  if (event == "set") return OneOf(name, {"SET", "SETNX", "GETSET", "SETEX", "PSETEX"});
  if (event == "expire") {
    return OneOf(name, {"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "SET", "SETEX", "PSETEX"});
  }
  if (event == "persist") return OneOf(name, {"PERSIST", "SET", "GETSET"});
  if (event.rfind("h", 0) == 0) return !name.empty() && (name[0] == 'h' || name[0] == 'H');
  if (event == "incrby" || event == "decrby") {
    return OneOf(name, {"INCR", "INCRBY", "INCRBYFLOAT", "DECR", "DECRBY"});
  }
  return false;
}

// Whether `r`, the answer to `cmd`, says that the command changed nothing
// (Redis's documented replies): a SET without GET answered nil (NX or XX
// found the key otherwise), a GETDEL answered nil, a SETNX, DEL, EXPIRE or
// the like answered 0. Such a command is not the writer of any change.
// Unknown (false) for everything else, errors included: a script may have
// written before its error, and a lost connection says nothing.
bool ChangedNothing(const Command& cmd, const Reply& r) {
  if (cmd.empty()) return false;
  const std::string_view name = cmd[0];
  if (r.IsNil()) {
    if (CommandNameIs(name, "GETDEL")) return true;
    return CommandNameIs(name, "SET") &&
           std::none_of(cmd.begin() + 1, cmd.end(),
                        [](const std::string& a) { return CommandNameIs(a, "GET"); });
  }
  return r.IsInteger(0) &&
         OneOf(name, {"SETNX", "HSETNX", "MSETNX", "DEL", "UNLINK", "HDEL", "EXPIRE", "PEXPIRE",
                      "EXPIREAT", "PEXPIREAT", "PERSIST"});
}

// Whether a command's arguments hold `text`, a value RawValue gave: the
// value itself (a token), or (hash values are "field\n"...) any field.
// It runs for every open flight at every poll turn while a state waits
// (AwaitingAnswers), so it builds no string.
bool Holds(const Command& cmd, const std::string& text) {
  if (text.empty()) return false;
  // A part of `text` counts only when a newline follows it (a hash's
  // field): in a value without one, only the whole value can match.
  const bool fields = text.find('\n') != std::string::npos;
  for (size_t i = 1; i < cmd.size(); ++i) {
    const std::string& a = cmd[i];
    if (a == text) return true;
    if (!fields || a.size() < 8) continue;
    for (size_t at = text.find(a); at != std::string::npos; at = text.find(a, at + 1)) {
      if (at + a.size() < text.size() && text[at + a.size()] == '\n') return true;
    }
  }
  return false;
}

// What a writer's arguments would hold of a value: a string itself, a
// hash's fields each followed by a newline (Writer matches either).
std::string RawValue(const KeyState& s) {
  if (!s.hash) return s.str;
  std::string raw;
  for (const auto& [field, value] : s.fields) raw += field + "\n";
  return raw;
}

}  // namespace

// Whether a command can cause one of keyspace events `events`: CanCause,
// but an EVAL is judged by its script. A script whose every redis.call and
// redis.pcall names its command as a literal can cause only what those
// commands cause; the test is by substring, so it errs towards "can" (a
// compare-and-delete, which calls only GET and DEL, cannot cause a set).
bool RealWorld::CanCauseAny(const Command& cmd, const std::vector<std::string>& events) {
  if (!CommandNameIs(cmd[0], "EVAL") || cmd.size() < 2) {
    return std::any_of(events.begin(), events.end(),
                       [&](const std::string& e) { return CanCause(cmd[0], e); });
  }
  const ScriptReading& script = ReadScript(cmd[1]);
  if (script.anything) return true;
  auto has = [&](std::string_view part) { return script.lower.find(part) != std::string::npos; };
  return std::any_of(events.begin(), events.end(), [&](const std::string& event) {
    if (has(event)) return true;
    if (event == "expire" || event == "persist") return has("set");  // SET ... PX, GETSET
    if (event == "del") return has("unlink");
    if (event == "incrby" || event == "decrby" || event == "hincrby") {
      return has("incr") || has("decr");
    }
    return false;
  });
}

const RealWorld::ScriptReading& RealWorld::ReadScript(const std::string& text) {
  if (auto it = script_readings_.find(text); it != script_readings_.end()) return it->second;
  // A run whose scripts all differ (a value written into each) keeps no
  // more than this many.
  if (script_readings_.size() >= 256) script_readings_.clear();
  ScriptReading r;
  r.lower = text;
  std::string& script = r.lower;
  std::transform(script.begin(), script.end(), script.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  auto has = [&](std::string_view part) { return script.find(part) != std::string::npos; };
  // Every `.call` and `.pcall` (redis., server., or a local alias) must be
  // a call whose first argument is a quoted name.
  auto literal_calls = [&] {
    for (std::string_view call : {".call", ".pcall"}) {
      for (size_t at = script.find(call); at != std::string::npos;
           at = script.find(call, at + 1)) {
        size_t next = script.find_first_not_of(" \t\r\n", at + call.size());
        if (next == std::string::npos || script[next] != '(') return false;
        next = script.find_first_not_of(" \t\r\n", next + 1);
        if (next == std::string::npos || (script[next] != '"' && script[next] != '\'')) {
          return false;
        }
      }
    }
    return true;
  };
  r.anything = !literal_calls() || has("rename") || has("move") || has("copy") ||
               has("restore") || has("flush") || has("swapdb") || has("sort") || has("bitop");
  return script_readings_.emplace(text, std::move(r)).first->second;
}

// What the subscription callback needs: the world and the node.
struct KeyWatch {
  RealWorld* world;
  int physical;
};

void RealWorld::WatchKeys(std::vector<std::string> keys) {
  watched_ = std::move(keys);
  awaiting_observers_ = 0;
  for (int i = 0; i < PhysicalNodeCount(); ++i) Subscribe(i);
  AwaitObservers();
}

// Subscribing and the first readings are asynchronous: a run that started
// at once could see a client's first SET reach a node before the node's
// subscription did, and that change would be read as "what the node held"
// with no writer. So the run waits (at most kObserverPatience) until every
// subscription is confirmed and every first reading is in. Only the
// observer's connections are served meanwhile; true time stays 0, and the
// run's clock starts when the wait ends: set-up is not the run's time. (It
// started before, at the servers' start: on a busy machine the wait can
// take hundreds of milliseconds, and everything scheduled within it came
// due at once when the run began: f09's clock jump, then at 500 ms, could
// reach redis0 before A's SET at 5 ms.)
void RealWorld::AwaitObservers() {
  constexpr Nanos kObserverPatience = std::chrono::seconds(10);
  const auto deadline = std::chrono::steady_clock::now() + kObserverPatience;
  settling_ = true;
  while (awaiting_observers_ > 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      settling_ = false;
      throw HarnessError("the nodes did not confirm the harness's keyspace subscriptions within " +
                         FormatDuration(kObserverPatience));
    }
    std::vector<pollfd> fds;
    std::vector<Conn*> owners;
    for (auto& [key, conn] : observers_) {
      if (conn->ac == nullptr || !(conn->want_read || conn->want_write)) continue;
      fds.push_back(pollfd{conn->ac->c.fd,
                           static_cast<short>((conn->want_read ? POLLIN : 0) |
                                              (conn->want_write ? POLLOUT : 0)),
                           0});
      owners.push_back(conn.get());
    }
    if (InterruptGuard::Poll(fds.data(), fds.size(), std::chrono::milliseconds(10)) <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      Conn* c = owners[i];
      if (fds[i].revents == 0 || c->ac == nullptr) continue;
      if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) redisAsyncHandleRead(c->ac);
      if (c->ac != nullptr && (fds[i].revents & POLLOUT)) redisAsyncHandleWrite(c->ac);
    }
    ReadPendingStates();
  }
  settling_ = false;
  RestartClock();
}

void RealWorld::Subscribe(int physical) {
  if (watched_.empty() || !IsUp(physical)) return;
  // Readings of this node's keys still out publish to the subscription
  // being replaced: their states will not come.
  for (auto it = snaps_out_.begin(); it != snaps_out_.end();) {
    it = it->second.physical == physical ? DropReading(it) : std::next(it);
  }
  for (int kind : {0, 1}) {
    auto& slot = observers_[{physical, kind}];
    if (slot && slot->ac != nullptr) {
      dropping_replies_ = true;
      redisAsyncFree(slot->ac);
      dropping_replies_ = false;
    }
    slot = std::make_unique<Conn>();
    slot->node = physical;
    // Directly to the node, not through the proxy: the harness's own eyes.
    // Over the node's Unix socket when it has one: an event costs the node
    // and the harness a write and a read each, cheaper there than over
    // loopback TCP, whose every segment goes through the whole IP stack.
    // TCP when there is none, or when it refuses (its file removed).
    const RedisServer& server = *nodes_[physical].server;
    redisAsyncContext* ac = nullptr;
    if (!server.unix_socket().empty()) {
      ac = redisAsyncConnectUnix(server.unix_socket().c_str());
      if (ac != nullptr && ac->err) {
        redisAsyncFree(ac);
        ac = nullptr;
      }
    }
    if (ac == nullptr) ac = redisAsyncConnect("127.0.0.1", server.port());
    if (ac == nullptr || ac->err) {
      const std::string why = ac ? ac->errstr : "out of memory";
      if (ac) redisAsyncFree(ac);
      throw HarnessError("cannot watch " + NodeName(physical) + ": " + why);
    }
    Attach(slot.get(), ac);
  }
  redisAsyncContext* sub = observers_[{physical, 0}]->ac;
  // Per key, its keyspace events and its readings (kSnapshotScript), one
  // SUBSCRIBE each: when the connection goes, hiredis calls a command's
  // callback once per channel with no reply, and OnKeyEvent frees its
  // privdata then.
  for (const std::string& key : watched_) {
    for (std::string_view prefix : {kKeyspacePrefix, kStatePrefix}) {
      const std::string channel = std::string(prefix) + key;
      const char* argv[] = {"SUBSCRIBE", channel.c_str()};
      const size_t lens[] = {9, channel.size()};
      // hiredis keeps the privdata for every message of the subscription.
      auto* watch = new KeyWatch{this, physical};
      if (redisAsyncCommandArgv(sub, &RealWorld::OnKeyEvent, watch, 2, argv, lens) != REDIS_OK) {
        delete watch;
        throw HarnessError("cannot subscribe to " + channel + " on " + NodeName(physical));
      }
      ++awaiting_observers_;
    }
    // And what the node holds now (after a restart: what its persistence
    // kept), read once the state channel is confirmed (OnKeyEvent).
    ++awaiting_observers_;
  }
}

// A node that is up but whose watching connections are gone: something
// closed them. Sentinel does, on the replica it promotes (CLIENT KILL TYPE
// normal and pubsub, so that clients reconnect and see the new role):
// without this, nothing a client does on the new master after a failover
// would be recorded. Watch it again (which also records what it holds now).
void RealWorld::ResubscribeLost() {
  if (watched_.empty()) return;
  for (int physical = 0; physical < PhysicalNodeCount(); ++physical) {
    if (!IsUp(physical)) continue;
    for (int kind : {0, 1}) {
      auto it = observers_.find({physical, kind});
      if (it != observers_.end() && it->second->ac == nullptr) {
        Subscribe(physical);
        break;
      }
    }
  }
}

void RealWorld::OnKeyEvent(redisAsyncContext* ac, void* reply, void* privdata) {
  auto* watch = static_cast<KeyWatch*>(privdata);
  auto* r = static_cast<redisReply*>(reply);
  // A null reply: the connection is going away; hiredis frees the
  // subscription's callbacks, and with them this privdata's last use.
  if (r == nullptr || (ac->c.flags & REDIS_FREEING)) {
    if (r == nullptr) delete watch;
    return;
  }
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
      r->element[0]->type != REDIS_REPLY_STRING) {
    return;
  }
  const std::string kind(r->element[0]->str, r->element[0]->len);
  RealWorld* world = watch->world;
  if (r->element[1]->type != REDIS_REPLY_STRING) return;
  const std::string_view channel(r->element[1]->str, r->element[1]->len);
  const bool state = channel.rfind(kStatePrefix, 0) == 0;
  if (kind == "subscribe") {
    --world->awaiting_observers_;
    // Subscribed: a reading published from now on reaches us.
    if (state) {
      const std::string key(channel.substr(kStatePrefix.size()));
      if (!world->Snap(Snapshot{watch->physical, key, {}, world->now_})) {
        --world->awaiting_observers_;  // no first reading will come
      }
    }
  }
  if (kind != "message" || world->dropping_replies_) return;
  if (r->element[2]->type != REDIS_REPLY_STRING) return;
  if (!world->settling_) world->now_ = std::max(world->now_, world->Elapsed());
  if (state) {
    world->OnReading(std::string_view(r->element[2]->str, r->element[2]->len));
    return;
  }
  if (channel.rfind(kKeyspacePrefix, 0) != 0) return;
  const std::string event(r->element[2]->str, r->element[2]->len);
  world->OnKeyChange(watch->physical, std::string(channel.substr(kKeyspacePrefix.size())), event);
}

void RealWorld::OnKeyChange(int physical, const std::string& key, const std::string& event) {
  const bool gone = event == "del" || event == "expired" || event == "evicted";
  KeyReadings& readings = readings_[{physical, key}];
  const Nanos previous = readings.last_set;
  if (event == "set" || event == "expire") readings.last_set = now_;
  if (gone) {
    // The event says it all: no reading (and no round trip) needed. Even
    // while a reading is out: it comes later on this subscription, so it
    // ran later and shows what followed the absence. Events of the key
    // queued in this turn came before this one: they are settled first
    // (explained, and recorded before the absence, or read, and the
    // reading then runs after it).
    if (readings.queued) ReadQueued(readings);
    const Snapshot s{physical, key, {event}, now_};
    if (event == "del") Match(s);  // a release: not the cause of a later set
    RecordState(s, KeyState::Absent(key));
    return;
  }
  // Read after this turn of the loop, once for every event of the key in it.
  if (!readings.queued) {
    readings.queued = Snapshot{physical, key, {}, now_};
    readings.before_batch = previous;
  }
  readings.queued->events.push_back(event);
}

void RealWorld::ReadPendingStates() {
  for (auto& [where, readings] : readings_) {
    if (readings.queued) ReadQueued(readings);
  }
}

void RealWorld::ReadQueued(KeyReadings& readings) {
  Snapshot snapshot = std::move(*readings.queued);
  readings.queued.reset();
  const Flight* writer = Match(snapshot);
  if (std::optional<KeyState> state = Explained(snapshot, writer, readings)) {
    RecordState(snapshot, std::move(*state));
  } else {
    Snap(std::move(snapshot));
  }
}

// The one command that can have caused a batch of events, if there is one:
// a client's command to that node, sent before the events came, in flight
// or answered within kRecentReply of them (as for Writer), that can cause
// one of them, and not already matched to an earlier batch
// (Flight::matched). A command whose answer says it changed nothing (a SET
// NX answered nil, a SETNX answered 0: ChangedNothing) is not one; one
// given up on is one until retired (GaveUp). When there is one, it is
// marked as matched: the events a command causes are published together,
// while it runs, so a later batch is someone else's.
// Only where every writer is one of our flights: no replica (a replicated
// write fires its events on a node that no client wrote to) and no
// third-party client (its commands are tapped by the proxy, on another
// thread).
const RealWorld::Flight* RealWorld::Match(const Snapshot& s) {
  if (!tapped_links_.empty() || groups_[GroupOf(s.physical)].members.size() > 1) return nullptr;
  for (const std::string& e : s.events) {
    if (e == "expired" || e == "evicted") return nullptr;  // the node's own doing
  }
  const std::vector<Flight*> recent = RecentFlights(s, kRecentReply);
  // A command's events are in this batch or an earlier one once a later
  // command to the node, sent after its answer, was answered before the
  // batch was read: the node wrote the events (to the observer's direct
  // connection) before it ran the later command, so before that answer.
  // Such a command is no longer a candidate. Without this, a command whose
  // events came in a batch that could not be put down to one writer (a
  // cycle's `set`, `expire` and `del` read together) stayed a candidate for
  // kRecentReply, and made every batch meanwhile ambiguous: each was read,
  // and left its own writer unmatched in turn.
  Nanos retired_before{-1};  // commands answered before this are retired
  for (const Flight* g : recent) {
    if (g->replied >= Nanos{0} && !g->given_up && g->replied <= s.at) {
      retired_before = std::max(retired_before, g->sent);
    }
  }
  Flight* only = nullptr;
  for (Flight* flight : recent) {
    Flight& f = *flight;
    if (f.sent > s.at || f.matched) continue;
    if (f.unchanged) continue;
    if (!f.given_up && f.replied >= Nanos{0} && f.replied <= retired_before) continue;
    if (!CanCauseAny(f.cmd, s.events)) continue;
    if (only != nullptr) return nullptr;  // two could have
    only = &f;
  }
  if (only != nullptr) only->matched = true;
  return only;
}

// A `set` (and its `expire`) that the harness's own `SET key value [NX]
// PX|EX n` explains: the one command that can have caused them (Match),
// answered +OK, and sent after the key's previous `set` or `expire` event
// came. The state is then that value, and needs no reading (a round trip,
// and a script the node runs). It is a state the node really had, after
// the last one recorded: the SET set its value (+OK), and its own events
// (a `set`, after it was sent) were not in an earlier batch, so neither was
// any event of a later command. Not while a reading of the key is out (it
// would be answered after this, and recorded last). The TTL is counted
// from the answer (the SET ran before it).
std::optional<KeyState> RealWorld::Explained(const Snapshot& s, const Flight* writer,
                                              const KeyReadings& readings) const {
  if (writer == nullptr || readings.out > 0 || writer->replied < Nanos{0} || !writer->ok ||
      writer->sent <= readings.before_batch) {
    return std::nullopt;
  }
  int sets = 0;  // one: two would be two writes, and which came last unknown
  for (const std::string& e : s.events) {
    if (e != "set" && e != "expire") return std::nullopt;
    sets += e == "set";
  }
  if (sets != 1) return std::nullopt;
  // SET key value, then only NX and one of PX/EX.
  const Command& c = writer->cmd;
  if (!CommandNameIs(c[0], "SET") || c.size() < 5 || c[1] != s.key) return std::nullopt;
  std::optional<int64_t> ttl_ms;
  for (size_t i = 3; i < c.size(); ++i) {
    if (CommandNameIs(c[i], "NX")) continue;
    const bool px = CommandNameIs(c[i], "PX"), ex = CommandNameIs(c[i], "EX");
    if (!(px || ex) || ttl_ms || i + 1 == c.size()) return std::nullopt;
    const std::string& arg = c[++i];
    int64_t n = 0;
    const auto [end, err] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
    if (err != std::errc() || end != arg.data() + arg.size() || n <= 0 || n > INT64_MAX / 1000) {
      return std::nullopt;
    }
    ttl_ms = px ? n : n * 1000;
  }
  if (!ttl_ms) return std::nullopt;
  KeyState state;
  state.key = s.key;
  state.present = true;
  state.str = c[2];
  const int64_t since_ms = duration_cast<Millis>(now_ - writer->replied).count();
  state.pttl_ms = std::max<int64_t>(*ttl_ms - since_ms, 1);
  return state;
}

// What a reading's answer on the reader's connection needs: the world and
// the reading's id. The state itself comes on the subscription (OnReading).
struct ReadingCall {
  RealWorld* world;
  uint64_t id;
};

bool RealWorld::Snap(Snapshot snapshot) {
  auto reader = observers_.find({snapshot.physical, 1});
  auto subscriber = observers_.find({snapshot.physical, 0});
  if (reader == observers_.end() || reader->second->ac == nullptr ||
      subscriber == observers_.end() || subscriber->second->ac == nullptr) {
    return false;
  }
  const uint64_t id = ++last_reading_;
  const std::string channel = std::string(kStatePrefix) + snapshot.key;
  char id_text[24];
  const size_t id_len =
      static_cast<size_t>(std::to_chars(id_text, id_text + sizeof(id_text), id).ptr - id_text);
  const char* argv[] = {"EVAL", kSnapshotScript, "1", snapshot.key.c_str(), channel.c_str(),
                        id_text};
  const size_t lens[] = {4, sizeof(kSnapshotScript) - 1, 1, snapshot.key.size(), channel.size(),
                         id_len};
  auto* call = new ReadingCall{this, id};
  if (redisAsyncCommandArgv(reader->second->ac, &RealWorld::OnSnapshot, call, 6, argv, lens) !=
      REDIS_OK) {
    delete call;
    return false;
  }
  ++readings_[{snapshot.physical, snapshot.key}].out;
  snaps_out_.emplace(id, std::move(snapshot));
  WriteNow(reader->second.get());  // after the count: a failed write answers at once
  return true;
}

std::map<uint64_t, RealWorld::Snapshot>::iterator RealWorld::DropReading(
    std::map<uint64_t, Snapshot>::iterator it) {
  --readings_[{it->second.physical, it->second.key}].out;
  if (!it->second.Caused()) --awaiting_observers_;
  return snaps_out_.erase(it);
}

// The reading's answer: how many subscribers its state was published to.
// Anything else (none, an error, the connection gone) means that no state
// will come.
void RealWorld::OnSnapshot(redisAsyncContext* ac, void* reply, void* privdata) {
  (void)ac;
  std::unique_ptr<ReadingCall> call(static_cast<ReadingCall*>(privdata));
  auto* r = static_cast<redisReply*>(reply);
  if (r != nullptr && r->type == REDIS_REPLY_INTEGER && r->integer > 0) return;
  auto it = call->world->snaps_out_.find(call->id);
  if (it != call->world->snaps_out_.end()) call->world->DropReading(it);
}

// A reading's state, in its place among the key's events: kSnapshotScript's
// message, MessagePack of {id, type, value, pttl}.
void RealWorld::OnReading(std::string_view message) {
  const nlohmann::json m = nlohmann::json::from_msgpack(message.begin(), message.end(),
                                                        /*strict=*/true,
                                                        /*allow_exceptions=*/false);
  if (!m.is_array() || m.empty() || !m[0].is_string()) return;  // not one of ours
  const std::string& id_text = m[0].get_ref<const std::string&>();
  uint64_t id = 0;
  const auto [end, err] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  if (err != std::errc() || end != id_text.data() + id_text.size()) return;
  auto it = snaps_out_.find(id);
  if (it == snaps_out_.end()) return;  // not ours to wait for any more
  const Snapshot snap = it->second;  // a copy: DropReading reads the entry
  DropReading(it);
  if (m.size() != 4 || !m[1].is_string()) return;  // unreadable: the state unseen
  KeyState state;
  state.key = snap.key;
  state.present = m[1] != "none";
  if (state.present) {
    const nlohmann::json& v = m[2];
    state.hash = v.is_array();
    if (state.hash) {
      for (size_t i = 0; i + 1 < v.size(); i += 2) {
        if (!v[i].is_string() || !v[i + 1].is_string()) continue;
        state.fields.emplace_back(v[i].get<std::string>(), v[i + 1].get<std::string>());
      }
    } else if (v.is_string()) {
      state.str = v.get<std::string>();
    }
    if (m[3].is_number_integer() && m[3].get<int64_t>() >= 0) state.pttl_ms = m[3].get<int64_t>();
  }
  RecordState(snap, std::move(state));
}

void RealWorld::RecordState(const Snapshot& s, KeyState state) {
  const int64_t now_ms = duration_cast<Millis>(now_).count();
  const int64_t expiry = state.pttl_ms ? now_ms + *state.pttl_ms : -1;
  auto found = observed_.find({s.physical, s.key});
  const bool first = found == observed_.end();
  if (!first) {
    const Observed& last = found->second;
    const bool same_expiry = (last.expiry < 0) == (expiry < 0) &&
                             std::abs(last.expiry - expiry) <= 2;  // a read's jitter
    if (last.state.SameValue(state) && same_expiry) return;
  }
  const bool value_changed = first || !found->second.state.SameValue(state);
  // What a deletion deleted: the value seen before it.
  const std::string previous = first ? "" : RawValue(found->second.state);
  observed_[{s.physical, s.key}] = Observed{state, expiry};
  if (first && !state.present) return;  // nothing to report yet
  // An expiry is nobody's. A batch of events holds no `del` or expiry
  // (OnKeyChange records those as they come, after settling the batch).
  const bool find_writer = s.Caused() && (!s.Expired() || state.present);
  std::string value;
  if (find_writer) value = state.present ? RawValue(state) : previous;
  unrecorded_.push_back(Unrecorded{s, std::move(state), value_changed ? OpType::kOk : OpType::kInfo,
                                   find_writer, std::move(value), now_});
  RecordReady();
}

Nanos RealWorld::RecordDeadline() const {
  return unrecorded_.empty() ? Nanos::max() : unrecorded_.front().queued + kRecentReply;
}

// A present state is put down to the command that wrote its value; when
// one that holds it is still unanswered, its answer may yet say that it
// changed nothing (a contender's SETNX of the same timestamp, answered 0
// after the reading), so the state waits for it, at most kRecentReply.
// Everything after it waits too, to keep the order.
bool RealWorld::AwaitingAnswers(const Unrecorded& u) const {
  if (!u.find_writer || !u.state.present || now_ - u.queued >= kRecentReply) return false;
  return std::any_of(open_flights_.begin(), open_flights_.end(), [&](uint64_t id) {
    const Flight& f = flights_.at(id);
    return f.physical == u.s.physical && f.sent <= u.s.at + kRecentReply && Holds(f.cmd, u.value);
  });
}

void RealWorld::RecordReady() {
  while (!unrecorded_.empty() && !AwaitingAnswers(unrecorded_.front())) {
    Unrecorded& u = unrecorded_.front();
    const int actor = MainActor(nodes_[u.s.physical].process);
    const int cause = u.find_writer ? Writer(u.s, u.value, !u.state.present, u.queued) : -1;
    if (u.state.pttl_ms) {  // the TTL it had when it was read, less the wait
      const int64_t waited_ms = duration_cast<Millis>(now_ - u.queued).count();
      *u.state.pttl_ms = std::max<int64_t>(*u.state.pttl_ms - waited_ms, 1);
    }
    history().AddState(now_, actor, u.type, std::move(u.state), cause);
    unrecorded_.pop_front();
  }
}

void RealWorld::Fly(uint64_t id, Flight flight) {
  flight.id = id;
  flights_[id] = std::move(flight);
  open_flights_.insert(id);
}

// A command whose client gave up on it (a request timeout) and closed its
// connection: what was written may still run on the node -- the kernel
// delivers it before the FIN, and a paused node reads it when it resumes --
// and change the key after the client moved on. So it stays a candidate
// cause of changes, with no answer: not +OK (Explained never takes a value
// from it), and not known to have run (Writer). It is retired kRecentReply
// after the node answers a command sent after it was given up on: by then
// the node has read it, if it ever will (its bytes were there first), and
// its events have come. Not once a loss fault was applied: the proxy holds
// a lost chunk for its retransmission (200 ms, doubling, up to 2 minutes),
// and a later connection's command may get through first; then only the
// cap below retires it. Forgetting it at once let a batch of events its SET
// caused be explained by another client's SET, the only candidate left: a
// state put down to the wrong holder, read as a foreign write (CI's
// sanitized Redlock run on three nodes, whose request timeouts fire).
void RealWorld::GaveUp(uint64_t id) {
  if (open_flights_.erase(id) == 0) return;
  Flight& f = flights_.at(id);
  f.given_up = true;
  f.replied = now_;
  given_up_.push_back(&f);
}

void RealWorld::Answered(uint64_t id, const Reply* reply) {
  if (open_flights_.erase(id) == 0) return;
  Flight& f = flights_.at(id);
  f.replied = now_;
  if (reply != nullptr) {
    f.ok = reply->type == Reply::Type::kStatus && reply->str == "OK";
    f.unchanged = ChangedNothing(f.cmd, *reply);
  }
  answered_.push_back({&f, f.physical, f.replied, !f.cmd.empty()});
  // Forget commands answered long ago (now_ only grows: the oldest first).
  while (!answered_.empty() && now_ - answered_.front().replied > std::chrono::seconds(1)) {
    flights_.erase(answered_.front().flight->id);
    answered_.pop_front();
  }
  // And those given up on, once retired long enough ago; a node that never
  // answers again (it crashed) keeps its own three minutes, longer than the
  // proxy's longest retransmission wait.
  if (!loss_seen_) {
    for (Flight* g : given_up_) {
      if (g->retired < Nanos{0} && g->physical == f.physical && g->replied < f.sent) {
        g->retired = now_ + kRecentReply;
      }
    }
  }
  while (!given_up_.empty()) {
    const Flight& g = *given_up_.front();
    const bool retired = g.retired >= Nanos{0} && now_ - g.retired > std::chrono::seconds(1);
    if (!retired && now_ - g.replied < std::chrono::minutes(3)) break;
    flights_.erase(g.id);
    given_up_.pop_front();
  }
}

// The commands to s's node that a change seen at s.at may be put down to,
// in the order they were sent: in flight, answered within `window` of s.at
// (answered_ is in the order of the answers: from its newest back), or
// given up on and not retired by then.
std::vector<RealWorld::Flight*> RealWorld::RecentFlights(const Snapshot& s, Nanos window) {
  std::vector<Flight*> out;
  // Answered within `window`, oldest first (answered_ is by time).
  auto from = answered_.end();
  while (from != answered_.begin() && s.at - std::prev(from)->replied <= window) --from;
  // given_up_ is left out: it keeps commands for minutes, of every node.
  out.reserve(static_cast<size_t>(answered_.end() - from) + open_flights_.size());
  for (auto a = from; a != answered_.end(); ++a) {
    if (a->physical == s.physical && a->has_cmd) out.push_back(a->flight);
  }
  for (uint64_t id : open_flights_) {
    Flight& f = flights_.at(id);
    if (f.physical == s.physical && !f.cmd.empty()) out.push_back(&f);
  }
  for (Flight* g : given_up_) {
    const bool retired = g->retired >= Nanos{0} && g->retired < s.at;
    if (g->physical == s.physical && !g->cmd.empty() && !retired) out.push_back(g);
  }
  // Ids are numbered as the commands are sent. In one client's steady run
  // the list is in that order already (answered, then the one in flight).
  auto by_id = [](const Flight* a, const Flight* b) { return a->id < b->id; };
  if (!std::is_sorted(out.begin(), out.end(), by_id)) std::sort(out.begin(), out.end(), by_id);
  return out;
}

// Who wrote a state's value, or deleted it: one of the commands answered
// within kRecentReply of its events, or in flight. When none of them can
// have, LateWriter.
int RealWorld::Writer(const Snapshot& s, const std::string& value, bool absent, Nanos read_at) {
  const int cause = RecentWriter(s, value, absent);
  return cause >= 0 ? cause : LateWriter(s, value, absent, read_at);
}

// When no command answered within kRecentReply of a state's events can
// have written it, the harness read the events (or the reading) late: a
// loaded machine's scheduler held it, or the node, for longer than that
// between a command's answer and the events the command caused, and -1
// would read as a foreign write (a `make test` run on a loaded machine put
// a getset-timestamp acquirer's value down to nobody). Then the value
// alone tells: the command, of those answered in the last second
// (answered_) and sent before the state was read, that holds it and
// changed the key; of several (contenders' SETNX of one timestamp), the
// latest, the last to write it. Only the value: a foreign write must not
// be put down to a client's command of a second ago that merely could have
// caused such an event.
int RealWorld::LateWriter(const Snapshot& s, const std::string& value, bool absent,
                          Nanos read_at) {
  const Flight* latest = nullptr;
  for (const Flight* f : RecentFlights(s, std::chrono::seconds(1))) {
    if (f->sent > read_at || f->unchanged || f->replied < Nanos{0} || f->given_up) continue;
    if (!Holds(f->cmd, value) || (absent && !CanCauseAny(f->cmd, s.events))) continue;
    if (latest == nullptr || f->sent > latest->sent) latest = f;
  }
  return latest != nullptr ? latest->actor : -1;
}

int RealWorld::RecentWriter(const Snapshot& s, const std::string& value, bool absent) {
  auto earliest = [](const std::vector<const Flight*>& pool) {
    return (*std::min_element(pool.begin(), pool.end(), [](const Flight* a, const Flight* b) {
             return a->sent < b->sent;
           }))->actor;
  };
  // Not a command whose answer says it changed nothing: three contenders'
  // SETNX of one timestamp all hold the value, and only the one answered 1
  // wrote it.
  std::vector<Flight*> recent = RecentFlights(s, kRecentReply);
  std::erase_if(recent, [&](const Flight* f) { return f->sent > s.at + kRecentReply || f->unchanged; });
  // The reading may already show a later change than the event's (a
  // release, then the next holder's SET): a value is put down to the client
  // that sent it, whatever the event was.
  if (!absent) {
    std::vector<const Flight*> wrote;
    for (const Flight* f : recent) {
      if (Holds(f->cmd, value)) wrote.push_back(f);
    }
    // One already answered is taken to have run before the reading did
    // (usually so: the reading was asked for after its events came), and
    // is the writer rather than one in flight that may run after. Not
    // certain: a node flushes its connections in no order the harness
    // can rely on; only the value it holds makes it a candidate at all.
    std::vector<const Flight*> ran;
    for (const Flight* f : wrote) {
      if (f->replied >= Nanos{0} && !f->given_up) ran.push_back(f);
    }
    if (!ran.empty()) return earliest(ran);
    if (!wrote.empty()) return earliest(wrote);
  }
  // Those sent before the events came that can cause one of them (the
  // name test last: it is the dearest).
  auto candidate = [&](const Flight* f) {
    return f->sent <= s.at && std::any_of(s.events.begin(), s.events.end(), [&](const std::string& e) {
             return CanCause(f->cmd[0], e);
           });
  };
  if (absent) {
    // A compare-and-delete names the value it deletes; a plain DEL does not.
    std::vector<const Flight*> best;
    for (const Flight* f : recent) {
      if (Holds(f->cmd, value) && candidate(f)) best.push_back(f);
    }
    if (!best.empty()) return earliest(best);
  }
  std::vector<const Flight*> candidates;
  for (const Flight* f : recent) {
    if (candidate(f)) candidates.push_back(f);
  }
  if (candidates.empty()) return -1;
  if (absent) {
    std::vector<const Flight*> dels;
    for (const Flight* f : candidates) {
      if (OneOf(f->cmd[0], {"DEL", "UNLINK", "GETDEL"})) dels.push_back(f);
    }
    if (!dels.empty()) return earliest(dels);
  }
  return earliest(candidates);
}

}  // namespace locksim
