// The keyspace, as redis db.c: lookups with lazy expiry, setting and
// deleting keys, WATCH invalidation, and the generic key commands.
#include <algorithm>

#include "sim/vredis/server.h"

namespace locksim {

// expireIfNeeded() of Redis 7.0: a master deletes an expired key when it is
// touched and propagates a DEL; a replica only hides it (its master will
// send the DEL), and while applying the master's stream nothing is expired.
bool VirtualRedis::ExpireIfNeeded(std::unordered_map<std::string, Object>::iterator it) {
  if (!KeyIsExpired(it->second) || loading_) return false;
  if (!replica_) DeleteExpiredKey(it);
  return true;
}

// deleteExpiredKeyAndPropagate() of 7.0: an expiry is a modification that
// WATCH sees (a client watching the key gets a nil EXEC, unless the key was
// already expired when it watched it), replicated as an explicit DEL.
void VirtualRedis::DeleteExpiredKey(std::unordered_map<std::string, Object>::iterator it) {
  std::string key = it->first;
  RemoveKey(it);
  SignalModifiedKey(key);
  if (propagating_) Propagate({"DEL", std::move(key)});
}

// One hash lookup: lookups are most of what a lock's commands do.
VirtualRedis::Object* VirtualRedis::LookupRead(const std::string& key) {
  auto it = db_.find(key);
  if (it == db_.end() || ExpireIfNeeded(it)) return nullptr;
  return &it->second;
}

VirtualRedis::Object* VirtualRedis::LookupWrite(const std::string& key) {
  return LookupRead(key);
}

VirtualRedis::Object& VirtualRedis::SetKey(const std::string& key, Object value, bool keep_ttl) {
  auto [it, added] = db_.try_emplace(key);
  Object& slot = it->second;
  if (!added && keep_ttl) value.expire_ms = slot.expire_ms;
  const int64_t when = value.expire_ms;
  // The object keeps its place in the expires index; SetExpire moves it.
  value.expire_ms = slot.expire_ms;
  value.expire_slot = slot.expire_slot;
  slot = std::move(value);
  SetExpire(it->first, slot, when, &it->first);
  SignalModifiedKey(key);
  return slot;
}

void VirtualRedis::SetExpire(const std::string& key, Object& o, int64_t when_ms,
                             const std::string* db_key) {
  o.expire_ms = when_ms;
  if (when_ms >= 0 && o.expire_slot < 0) {
    // The index keeps db_'s own copy of the key, whatever `key` is.
    o.expire_slot = static_cast<int64_t>(expires_.size());
    expires_.push_back(Expiring{db_key != nullptr ? db_key : &db_.find(key)->first, &o});
  } else if (when_ms < 0 && o.expire_slot >= 0) {
    // Swap-remove, so sampling stays O(1).
    const size_t i = static_cast<size_t>(o.expire_slot);
    if (i + 1 != expires_.size()) {
      expires_[i] = expires_.back();
      expires_[i].object->expire_slot = static_cast<int64_t>(i);
    }
    expires_.pop_back();
    o.expire_slot = -1;
  }
}

void VirtualRedis::RemoveKey(std::unordered_map<std::string, Object>::iterator it) {
  SetExpire(it->first, it->second, -1);
  db_.erase(it);
}

void VirtualRedis::ClearDb() {
  db_.clear();
  expires_.clear();
}

void VirtualRedis::RebuildExpiresIndex() {
  expires_.clear();
  // Sorted, so that the index (and what active expiry samples) does not
  // depend on hash-map order.
  for (auto& [key, o] : db_) {
    o.expire_slot = -1;
    if (o.expire_ms >= 0) expires_.push_back(Expiring{&key, &o});
  }
  std::sort(expires_.begin(), expires_.end(),
            [](const Expiring& a, const Expiring& b) { return *a.key < *b.key; });
  for (size_t i = 0; i < expires_.size(); ++i) {
    expires_[i].object->expire_slot = static_cast<int64_t>(i);
  }
}

bool VirtualRedis::DeleteKey(const std::string& key) {
  auto it = db_.find(key);
  if (it == db_.end()) return false;
  RemoveKey(it);
  SignalModifiedKey(key);
  return true;
}

// touchWatchedKey(): every connection watching `key` will see EXEC fail.
void VirtualRedis::SignalModifiedKey(const std::string& key) {
  // Most writes touch a key nobody watches: no scan of the connections.
  if (watchers_.empty() || !watchers_.contains(key)) return;
  for (auto& [id, c] : conns_) {
    auto w = c.watched.find(key);
    if (w == c.watched.end()) continue;
    if (w->second && db_.find(key) == db_.end()) {
      // Watched while already expired and now deleted: logically no change
      // (Redis 7.0 touchWatchedKey); the flag is cleared instead.
      w->second = false;
      continue;
    }
    c.dirty_cas = true;
  }
}

// touchAllWatchedKeysInDb() of 7.0 for FLUSHALL and a full resync: a
// watched key that is about to be emptied away was modified, unless it was
// already expired when watched (deleting it changes nothing logically).
void VirtualRedis::SignalFlushed() {
  for (auto& [id, c] : conns_) {
    for (auto& [key, expired] : c.watched) {
      if (!db_.contains(key)) continue;
      if (expired) {
        expired = false;
        continue;
      }
      c.dirty_cas = true;
    }
  }
}

// delGenericCommand(): an expired key is expired first (on a master it is
// then gone, and does not count), then deleted. UNLINK differs only in freeing memory in the
// background, and both propagate as they were written.
Reply VirtualRedis::DelCommand(const Command& argv) {
  int64_t deleted = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    auto it = db_.find(argv[i]);
    if (it == db_.end()) continue;
    // Expired on a master: deleted by the expiry, not counted. A replica
    // only hides an expired key, and deletes it when its master says so.
    if (ExpireIfNeeded(it) && !replica_) continue;
    RemoveKey(it);
    SignalModifiedKey(argv[i]);
    ++deleted;
    ++dirty_;
  }
  return Reply::Integer(deleted);
}

Reply VirtualRedis::UnlinkCommand(const Command& argv) { return DelCommand(argv); }

// existsCommand(): a key named twice counts twice.
Reply VirtualRedis::ExistsCommand(const Command& argv) {
  int64_t count = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (LookupRead(argv[i]) != nullptr) ++count;
  }
  return Reply::Integer(count);
}

// typeCommand(): a status reply, "none" for a missing key.
Reply VirtualRedis::TypeCommand(const Command& argv) {
  const Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Status("none");
  return Reply::Status(o->type == Object::Type::kHash ? "hash" : "string");
}

// dbsizeCommand(): counts keys that are logically expired but not deleted
// yet (by a lookup or the active cycle), as Redis's dictSize() does.
Reply VirtualRedis::DbsizeCommand(const Command&) {
  return Reply::Integer(static_cast<int64_t>(db_.size()));
}

// flushallCommand() / getFlushCommandFlags(): an optional SYNC or ASYNC and
// nothing else. Watchers are touched while the keys are still there, and
// with RDB persistence Redis saves the (now empty) dataset at once.
Reply VirtualRedis::FlushallCommand(const Command& argv) {
  Reply reply = FlushDb(argv);
  if (reply.IsError()) return reply;
  if (persistence_ == Persistence::kRdb) {
    rdb_.clear();
    last_save_ms_ = now_ms_;
  }
  return Reply::Ok();
}

const std::string* VirtualRedis::PeekString(const std::string& key, int64_t now_ms) const {
  auto it = db_.find(key);
  if (it == db_.end() || it->second.type != Object::Type::kString) return nullptr;
  if (it->second.expire_ms >= 0 && now_ms > it->second.expire_ms) return nullptr;
  return &it->second.str;
}

VirtualRedis::KeyChange VirtualRedis::LookAtKey(const std::string& key, int64_t now_ms,
                                                KeySeen* seen) const {
  auto it = db_.find(key);
  if (it == db_.end() || (it->second.expire_ms >= 0 && now_ms > it->second.expire_ms)) {
    if (!seen->live) return KeyChange::kNone;
    *seen = KeySeen{};
    return KeyChange::kValue;
  }
  const Object& o = it->second;
  const bool hash = o.type == Object::Type::kHash;
  const bool same_value =
      seen->live && seen->hash == hash && (hash ? seen->fields == o.hash : seen->str == o.str);
  if (same_value) {
    if (seen->expire_ms == o.expire_ms) return KeyChange::kNone;
    seen->expire_ms = o.expire_ms;
    return KeyChange::kExpiry;
  }
  seen->live = true;
  seen->hash = hash;
  seen->expire_ms = o.expire_ms;
  if (hash) {
    seen->str.clear();
    seen->fields = o.hash;
  } else {
    seen->str = o.str;
    seen->fields.clear();
  }
  return KeyChange::kValue;
}

int64_t VirtualRedis::PeekExpire(const std::string& key) const {
  auto it = db_.find(key);
  return it == db_.end() ? -2 : it->second.expire_ms;
}

}  // namespace locksim

namespace locksim {

// selectCommand(): one database is modelled, number 0; the others of a
// default Redis (1-15) are refused rather than silently shared.
Reply VirtualRedis::SelectCommand(const Command& argv) {
  int64_t id = 0;
  if (!StringToInt64(argv[1], &id)) return Reply::Error(std::string(kNotIntegerErr));
  if (id < 0 || id > 15) return Reply::Error("ERR DB index is out of range");
  if (id != 0) return Reply::Error("ERR locksim models database 0 only");
  return Reply::Ok();
}

// flushdbCommand(): FLUSHALL of the one database, without FLUSHALL's save.
Reply VirtualRedis::FlushdbCommand(const Command& argv) { return FlushDb(argv); }

// What FLUSHALL and FLUSHDB share (getFlushCommandFlags, emptyData): an
// optional SYNC or ASYNC and nothing else; watchers are touched while the
// keys are still there.
Reply VirtualRedis::FlushDb(const Command& argv) {
  if (argv.size() > 2 ||
      (argv.size() == 2 && !IsKeyword(argv[1], "SYNC") && !IsKeyword(argv[1], "ASYNC"))) {
    return Reply::Error(std::string(kSyntaxErr));
  }
  SignalFlushed();
  dirty_ += static_cast<int64_t>(db_.size());
  ClearDb();
  ++dirty_;  // so that it propagates even when the keyspace was empty
  return Reply::Ok();
}

}  // namespace locksim
