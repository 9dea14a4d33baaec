// Transactions and optimistic locking, as redis multi.c (7.0).
//
// Seed 000's point, made exact: a command that fails while being queued
// (unknown command, wrong arity) aborts the whole EXEC with EXECABORT; a
// command that fails when run (WRONGTYPE) returns its error inside EXEC's
// reply while the others run; EXEC returns nil when a watched key changed
// (or expired) after WATCH.
#include "sim/vredis/server.h"

namespace locksim {

Reply VirtualRedis::MultiCommand(const Command&) {
  if (conn_->in_multi) return Reply::Error("ERR MULTI calls can not be nested");
  conn_->in_multi = true;
  return Reply::Ok();
}

void VirtualRedis::DiscardTransaction() {
  conn_->queued.clear();
  conn_->in_multi = false;
  conn_->dirty_cas = false;
  conn_->dirty_exec = false;
  UnwatchAll();
}

Reply VirtualRedis::DiscardCommand(const Command&) {
  if (!conn_->in_multi) return Reply::Error("ERR DISCARD without MULTI");
  DiscardTransaction();
  return Reply::Ok();
}

// isWatchedKeyExpired(): a watched key that has expired since WATCH (and was
// not already expired then) makes EXEC fail.
bool VirtualRedis::IsWatchedKeyExpired() {
  for (const auto& [key, expired_when_watched] : conn_->watched) {
    if (expired_when_watched) continue;
    auto it = db_.find(key);
    if (it != db_.end() && KeyIsExpired(it->second)) return true;
  }
  return false;
}

Reply VirtualRedis::ExecCommand(const Command&) {
  if (!conn_->in_multi) return Reply::Error("ERR EXEC without MULTI");
  if (IsWatchedKeyExpired()) conn_->dirty_cas = true;
  if (conn_->dirty_cas || conn_->dirty_exec) {
    Reply r = conn_->dirty_exec
                  ? Reply::Error("EXECABORT Transaction discarded because of previous errors.")
                  : Reply::Nil();
    DiscardTransaction();
    return r;
  }
  std::vector<Command> queued = std::move(conn_->queued);
  UnwatchAll();
  conn_->in_multi = false;
  ++effects_depth_;
  std::vector<Reply> replies;
  replies.reserve(queued.size());
  for (const Command& argv : queued) {
    const CommandSpec* spec = Lookup(argv[0]);
    if (replica_ && !loading_ && (spec->flags & kWrite)) {
      replies.push_back(Reply::Error("READONLY You can't write against a read only replica."));
      continue;
    }
    replies.push_back(Call(*spec, argv));
  }
  --effects_depth_;
  FlushEffects();
  DiscardTransaction();
  return Reply::Array(std::move(replies));
}

Reply VirtualRedis::WatchCommand(const Command& argv) {
  if (conn_->in_multi) return Reply::Error("ERR WATCH inside MULTI is not allowed");
  if (conn_->dirty_cas) return Reply::Ok();  // no point in watching more
  for (size_t i = 1; i < argv.size(); ++i) {
    if (conn_->watched.contains(argv[i])) continue;
    auto it = db_.find(argv[i]);
    conn_->watched[argv[i]] = it != db_.end() && KeyIsExpired(it->second);
  }
  return Reply::Ok();
}

void VirtualRedis::UnwatchAll() { conn_->watched.clear(); }

Reply VirtualRedis::UnwatchCommand(const Command&) {
  UnwatchAll();
  conn_->dirty_cas = false;
  return Reply::Ok();
}

}  // namespace locksim
