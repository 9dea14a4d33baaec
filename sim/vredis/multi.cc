// Transactions and optimistic locking, as redis multi.c (7.0).
//
// Seed 000's point, made exact: a command that fails while being queued
// (unknown command, wrong arity) aborts the whole EXEC with EXECABORT; a
// command that fails when run (WRONGTYPE) returns its error inside EXEC's
// reply while the others run; EXEC returns nil when a watched key changed
// (or expired) after WATCH. The checks that reject a command before it is
// queued live in Dispatch() (processCommand); a rejected EXEC ends up in
// ExecCommandAbort().
#include "sim/vredis/server.h"

namespace locksim {

Reply VirtualRedis::MultiCommand(const Command&) {
  // Not a rejection: the transaction stays valid (multiCommand()).
  if (conn_->in_multi) return Reply::Error("ERR MULTI calls can not be nested");
  conn_->in_multi = true;
  return Reply::Ok();
}

// discardTransaction(): leaves MULTI, forgets the queue and both dirty
// flags, and unwatches every key.
void VirtualRedis::DiscardTransaction() {
  conn_->queued.clear();
  conn_->queued_flags = 0;
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

// execCommandAbort(): reached when processCommand() rejects an EXEC (wrong
// arity, subscribed context, a write on a read-only replica), inside MULTI
// or not. The error loses its "ERR " code and follows the EXECABORT one.
Reply VirtualRedis::ExecCommandAbort(std::string_view error) {
  DiscardTransaction();
  if (error.starts_with("ERR ")) error.remove_prefix(4);
  return FormatError("EXECABORT Transaction discarded because of: " + std::string(error));
}

// isWatchedKeyExpired(): a watched key that has expired since WATCH (and was
// not already expired then) makes EXEC fail, even if nobody touched it.
bool VirtualRedis::IsWatchedKeyExpired() {
  for (const auto& [key, expired_when_watched] : conn_->watched) {
    if (expired_when_watched) continue;
    auto it = db_.find(key);
    if (it != db_.end() && KeyIsExpired(it->second)) return true;
  }
  return false;
}

// execCommand(). Queued commands run through Call() one after the other,
// at the same frozen time; their effects reach replicas and the AOF
// together (wrapped in MULTI/EXEC when there are several), and EXEC itself
// is not propagated.
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
  UnwatchAll();  // "Unwatch ASAP otherwise we'll waste CPU cycles"
  const bool outer_exec = in_exec_;
  in_exec_ = true;
  ++effects_depth_;
  std::vector<Reply> replies;
  replies.reserve(queued.size());
  for (const Command& argv : queued) {
    replies.push_back(Call(*Lookup(argv[0]), argv));
  }
  --effects_depth_;
  in_exec_ = outer_exec;
  FlushEffects();
  DiscardTransaction();
  return Reply::Array(std::move(replies));
}

// watchCommand() / watchForKey(): remembers, per key, whether it was already
// logically expired (but not yet deleted) when watched.
Reply VirtualRedis::WatchCommand(const Command& argv) {
  if (conn_->in_multi) return Reply::Error("ERR WATCH inside MULTI is not allowed");
  if (conn_->dirty_cas) return Reply::Ok();  // no point in watching more
  for (size_t i = 1; i < argv.size(); ++i) {
    if (conn_->watched.contains(argv[i])) continue;
    auto it = db_.find(argv[i]);
    conn_->watched[argv[i]] = it != db_.end() && KeyIsExpired(it->second);
    ++watchers_[argv[i]];
  }
  return Reply::Ok();
}

void VirtualRedis::UnwatchAll() {
  for (const auto& [key, expired] : conn_->watched) {
    auto w = watchers_.find(key);
    if (--w->second == 0) watchers_.erase(w);
  }
  conn_->watched.clear();
}

// unwatchCommand(): also forgets that a watched key was touched. Inside
// MULTI it is queued like any other command.
Reply VirtualRedis::UnwatchCommand(const Command&) {
  UnwatchAll();
  conn_->dirty_cas = false;
  return Reply::Ok();
}

}  // namespace locksim
