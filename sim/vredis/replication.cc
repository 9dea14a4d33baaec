// Propagation of write effects to replicas and the AOF, the replica role,
// persistence and crash/restart, and the active expiry cycle: the parts of
// redis server.c (call/propagate), replication.c, aof.c, rdb.c and expire.c
// that decide what a replica or a restarted node knows.
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/vredis/script_lua.h"
#include "sim/vredis/server.h"

namespace locksim {

// alsoPropagate(): an effect with no target is not kept at all (so it does
// not count towards the MULTI/EXEC wrapping below).
void VirtualRedis::Propagate(Command argv, unsigned targets) {
  if (targets == 0) return;
  if (effects_depth_ > 0) {
    pending_effects_.push_back(Effect{std::move(argv), targets});
    return;
  }
  Emit(std::move(argv), targets);
}

void VirtualRedis::Emit(Command argv, unsigned targets) {
  if (replaying_aof_) return;
  if ((targets & kPropagateAof) &&
      (persistence_ == Persistence::kAofAlways || persistence_ == Persistence::kAofEverySec)) {
    aof_.push_back(argv);
    if (persistence_ == Persistence::kAofAlways) aof_synced_ = aof_.size();
  }
  if ((targets & kPropagateRepl) && !replica_) repl_stream_.push_back(std::move(argv));
}

// The effects of a script or a transaction reach replicas together: one
// command as it is, several inside MULTI ... EXEC.
void VirtualRedis::FlushEffects() {
  if (effects_depth_ > 0 || pending_effects_.empty()) return;
  std::vector<Effect> effects = std::exchange(pending_effects_, {});
  if (effects.size() == 1) {
    Emit(std::move(effects.front().argv), effects.front().targets);
    return;
  }
  // propagatePendingCommands(): MULTI and EXEC go to both, whatever the
  // targets of the effects between them.
  Emit({"MULTI"});
  for (Effect& e : effects) Emit(std::move(e.argv), e.targets);
  Emit({"EXEC"});
}

std::vector<Command> VirtualRedis::TakeReplicationStream() {
  return std::exchange(repl_stream_, {});
}

void VirtualRedis::SetReplica(bool replica) {
  replica_ = replica;
  if (replica && master_conn_ < 0) master_conn_ = Connect();
}

void VirtualRedis::ApplyReplicated(const Command& argv, int64_t now_ms) {
  if (master_conn_ < 0) master_conn_ = Connect();
  const bool was_loading = loading_;
  loading_ = true;
  Execute(master_conn_, argv, now_ms);
  loading_ = was_loading;
}

void VirtualRedis::LoadFrom(const VirtualRedis& master) {
  SignalFlushed();
  db_ = master.db_;
  RebuildExpiresIndex();
  // What is on disk now describes the new dataset: the RDB received from
  // the master, or an AOF rewritten from it (one command per key, sorted).
  if (persistence_ == Persistence::kRdb) rdb_ = db_;
  if (persistence_ == Persistence::kAofAlways || persistence_ == Persistence::kAofEverySec) {
    aof_.clear();
    for (const std::string& key : SortedKeys()) {
      const Object& o = db_.at(key);
      if (o.type == Object::Type::kString) {
        aof_.push_back({"SET", key, o.str});
      } else {
        Command hset = {"HSET", key};
        for (const auto& [field, value] : o.hash) {
          hset.push_back(field);
          hset.push_back(value);
        }
        aof_.push_back(std::move(hset));
      }
      if (o.expire_ms >= 0) aof_.push_back({"PEXPIREAT", key, std::to_string(o.expire_ms)});
    }
    aof_synced_ = aof_.size();
  }
}

std::vector<std::string> VirtualRedis::SortedKeys() const {
  std::vector<std::string> keys;
  keys.reserve(db_.size());
  for (const auto& [key, o] : db_) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

void VirtualRedis::SetPersistence(Persistence policy, int64_t rdb_interval_ms) {
  persistence_ = policy;
  rdb_interval_ms_ = rdb_interval_ms;
}

void VirtualRedis::PersistenceCron() {
  if (persistence_ == Persistence::kAofEverySec && now_ms_ - last_fsync_ms_ >= 1000) {
    aof_synced_ = aof_.size();
    last_fsync_ms_ = now_ms_;
  }
  // As "save <interval> 1": a snapshot when something changed.
  if (persistence_ == Persistence::kRdb && dirty_ != dirty_at_last_save_ &&
      now_ms_ - last_save_ms_ >= rdb_interval_ms_) {
    rdb_ = db_;
    last_save_ms_ = now_ms_;
    dirty_at_last_save_ = dirty_;
  }
}

bool VirtualRedis::HasCronWork() const {
  return (!replica_ && !expires_.empty()) ||
         (persistence_ == Persistence::kAofEverySec && aof_synced_ < aof_.size()) ||
         (persistence_ == Persistence::kRdb && dirty_ != dirty_at_last_save_);
}

void VirtualRedis::Crash(bool power_loss) {
  if (persistence_ == Persistence::kAofEverySec && power_loss) {
    aof_.resize(aof_synced_);
  } else {
    aof_synced_ = aof_.size();
  }
  ClearDb();
  conns_.clear();
  subscribers_.clear();
  queued_pushes_ = 0;
  watchers_.clear();
  conns_[kDefaultConn];
  master_conn_ = -1;
  pending_effects_.clear();
  repl_stream_.clear();
  effects_depth_ = 0;
  // A new process: an empty script cache and math.random seeded afresh.
  lua_ = std::make_unique<LuaScripting>(this);
}

void VirtualRedis::Restart(int64_t now_ms) {
  ClearDb();
  now_ms_ = now_ms;
  last_fsync_ms_ = last_save_ms_ = now_ms;
  switch (persistence_) {
    case Persistence::kNone:
      break;
    case Persistence::kRdb:
      // rdbLoad() skips keys already expired when a master loads them.
      db_ = rdb_;
      for (auto it = db_.begin(); it != db_.end();) {
        it = KeyIsExpired(it->second) ? db_.erase(it) : std::next(it);
      }
      RebuildExpiresIndex();
      break;
    case Persistence::kAofAlways:
    case Persistence::kAofEverySec: {
      // Replay the file through a fake client, as loadAppendOnlyFiles().
      const ConnId loader = Connect();
      replaying_aof_ = true;
      loading_ = true;
      for (const Command& argv : aof_) Execute(loader, argv, now_ms);
      loading_ = false;
      replaying_aof_ = false;
      Disconnect(loader);
      break;
    }
  }
  if (replica_) master_conn_ = Connect();
}

// activeExpireCycle(), simplified but with its shape: look at up to 20
// keys with a TTL, delete the expired ones (as a lazy expiry does: watchers
// touched, DEL propagated), and go on while more than 10% of them had
// expired, at most 16 rounds a call. Redis 7.0 walks the expires table from
// a cursor until it has looked at min(keys, 20): with 20 keys or fewer it
// looks at each once, and so does this, from the last; with more, it looks
// at 20 drawn at random (the node's own random source, which only this
// draws from).
void VirtualRedis::ActiveExpireCycle(Random& random) {
  // The sample's object is at hand: the key is looked up only to be deleted
  // (copying and looking up every sample was two thirds of the cycle,
  // callgrind). Deleting moves the last entry into the hole (db.cc), which
  // a walk from the end has already seen.
  auto look = [&](size_t i) {
    const Expiring sample = expires_[i];
    if (!KeyIsExpired(*sample.object)) return false;
    auto it = db_.find(*sample.key);
    // The index and the keyspace change together (SetKey, RemoveKey): a key
    // in one and not the other is a bug of the virtual Redis (in a run, a
    // broken simulator invariant: VirtualWorld).
    if (it == db_.end()) {
      throw HarnessError("virtual Redis: the expiry index holds a key the keyspace has not: " +
                         *sample.key);
    }
    DeleteExpiredKey(it);
    return true;
  };
  constexpr size_t kKeysPerLoop = 20;
  for (int round = 0; round < 16 && !expires_.empty(); ++round) {
    size_t sampled = 0, expired = 0;
    if (expires_.size() <= kKeysPerLoop) {
      for (size_t i = expires_.size(); i-- > 0; ++sampled) expired += look(i);
    } else {
      for (; sampled < kKeysPerLoop && !expires_.empty(); ++sampled) {
        expired += look(random.Uniform(expires_.size()));
      }
    }
    if (expired * 10 <= sampled) break;
  }
}

}  // namespace locksim
