// The keyspace, as redis db.c: lookups with lazy expiry, setting and
// deleting keys, WATCH invalidation, and the generic key commands.
#include <algorithm>

#include "sim/vredis/server.h"

namespace locksim {

// expireIfNeeded() of Redis 7.0: a master deletes an expired key when it is
// touched and propagates a DEL; a replica only hides it (its master will
// send the DEL), and while applying the master's stream nothing is expired.
bool VirtualRedis::ExpireIfNeeded(const std::string& key) {
  auto it = db_.find(key);
  if (it == db_.end() || !KeyIsExpired(it->second)) return false;
  if (loading_) return false;
  if (replica_) return true;
  DeleteExpiredKey(it);
  return true;
}

// deleteExpiredKeyAndPropagate() of 7.0: an expiry is a modification that
// WATCH sees (a client watching the key gets a nil EXEC, unless the key was
// already expired when it watched it), replicated as an explicit DEL.
void VirtualRedis::DeleteExpiredKey(std::unordered_map<std::string, Object>::iterator it) {
  std::string key = it->first;
  RemoveKey(it);
  SignalModifiedKey(key);
  Propagate({"DEL", std::move(key)});
}

VirtualRedis::Object* VirtualRedis::LookupRead(const std::string& key) {
  if (ExpireIfNeeded(key)) return nullptr;
  auto it = db_.find(key);
  return it == db_.end() ? nullptr : &it->second;
}

VirtualRedis::Object* VirtualRedis::LookupWrite(const std::string& key) {
  return LookupRead(key);
}

VirtualRedis::Object& VirtualRedis::SetKey(const std::string& key, Object value, bool keep_ttl) {
  auto it = db_.find(key);
  if (it != db_.end() && keep_ttl) value.expire_ms = it->second.expire_ms;
  const int64_t when = value.expire_ms;
  value.expire_ms = it != db_.end() ? it->second.expire_ms : -1;
  Object& slot = db_[key];
  slot = std::move(value);
  SetExpire(key, slot, when);
  SignalModifiedKey(key);
  return slot;
}

void VirtualRedis::SetExpire(const std::string& key, Object& o, int64_t when_ms) {
  o.expire_ms = when_ms;
  auto pos = expires_pos_.find(key);
  if (when_ms >= 0 && pos == expires_pos_.end()) {
    expires_pos_.emplace(key, expires_.size());
    expires_.push_back(key);
  } else if (when_ms < 0 && pos != expires_pos_.end()) {
    // Swap-remove, so sampling stays O(1).
    const size_t i = pos->second;
    expires_pos_.erase(pos);
    if (i + 1 != expires_.size()) {
      expires_[i] = std::move(expires_.back());
      expires_pos_[expires_[i]] = i;
    }
    expires_.pop_back();
  }
}

void VirtualRedis::RemoveKey(std::unordered_map<std::string, Object>::iterator it) {
  SetExpire(it->first, it->second, -1);
  db_.erase(it);
}

void VirtualRedis::ClearDb() {
  db_.clear();
  expires_.clear();
  expires_pos_.clear();
}

void VirtualRedis::RebuildExpiresIndex() {
  expires_.clear();
  expires_pos_.clear();
  // Sorted, so that the index (and what active expiry samples) does not
  // depend on hash-map order.
  std::vector<std::string> keys;
  for (const auto& [key, o] : db_) {
    if (o.expire_ms >= 0) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  for (std::string& k : keys) {
    expires_pos_.emplace(k, expires_.size());
    expires_.push_back(std::move(k));
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

// delGenericCommand(): an expired key is expired first (so it does not
// count), then deleted. UNLINK differs only in freeing memory in the
// background, and both propagate as they were written.
Reply VirtualRedis::DelCommand(const Command& argv) {
  int64_t deleted = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    ExpireIfNeeded(argv[i]);
    if (DeleteKey(argv[i])) {
      ++deleted;
      ++dirty_;
    }
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
  if (argv.size() > 2 ||
      (argv.size() == 2 && !IsKeyword(argv[1], "SYNC") && !IsKeyword(argv[1], "ASYNC"))) {
    return Reply::Error(std::string(kSyntaxErr));
  }
  SignalFlushed();
  dirty_ += static_cast<int64_t>(db_.size());
  ClearDb();
  ++dirty_;  // so that it propagates even when the keyspace was empty
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
