// Key expiry commands, as redis expire.c (7.0): EXPIRE, PEXPIRE, EXPIREAT,
// PEXPIREAT with NX / XX / GT / LT, TTL, PTTL and PERSIST. Expiry times are
// absolute unix milliseconds; a key is gone when now > when (db.cc).
#include <climits>

#include "sim/vredis/server.h"

namespace locksim {
namespace {

enum ExpireFlags : unsigned {
  kExpireNx = 1 << 0,
  kExpireXx = 1 << 1,
  kExpireGt = 1 << 2,
  kExpireLt = 1 << 3,
};

// parseExtendedExpireArgumentsOrReply(): every option is read (an unknown
// one is an error at once), then the combinations are checked.
bool ParseExpireFlags(const Command& argv, unsigned* flags, Reply* error) {
  for (size_t j = 3; j < argv.size(); ++j) {
    const std::string& opt = argv[j];
    if (IsKeyword(opt, "NX")) {
      *flags |= kExpireNx;
    } else if (IsKeyword(opt, "XX")) {
      *flags |= kExpireXx;
    } else if (IsKeyword(opt, "GT")) {
      *flags |= kExpireGt;
    } else if (IsKeyword(opt, "LT")) {
      *flags |= kExpireLt;
    } else {
      *error = FormatError("ERR Unsupported option " + opt);
      return false;
    }
  }
  if ((*flags & kExpireNx) && (*flags & (kExpireXx | kExpireGt | kExpireLt))) {
    *error = Reply::Error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & kExpireGt) && (*flags & kExpireLt)) {
    *error = Reply::Error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

}  // namespace

Reply VirtualRedis::ExpireCommand(const Command& argv) {
  return ExpireGeneric(argv, now_ms_, /*seconds=*/true);
}
Reply VirtualRedis::PexpireCommand(const Command& argv) {
  return ExpireGeneric(argv, now_ms_, /*seconds=*/false);
}
Reply VirtualRedis::ExpireatCommand(const Command& argv) {
  return ExpireGeneric(argv, 0, /*seconds=*/true);
}
Reply VirtualRedis::PexpireatCommand(const Command& argv) {
  return ExpireGeneric(argv, 0, /*seconds=*/false);
}

// expireGenericCommand(). The order is Redis's: options, then the number
// (a negative one is allowed; only an overflow is an error), then the key.
// A time that is not in the future deletes the key at once and propagates
// DEL; otherwise the command propagates as PEXPIREAT with the absolute
// time, options kept. A replica or a loading node never deletes here
// (checkAlreadyExpired()): it sets the past time and waits for a DEL.
Reply VirtualRedis::ExpireGeneric(const Command& argv, int64_t basetime_ms, bool seconds) {
  const std::string& key = argv[1];
  unsigned flags = 0;
  Reply error;
  if (!ParseExpireFlags(argv, &flags, &error)) return error;
  int64_t when;
  if (!StringToInt64(argv[2], &when)) return Reply::Error(std::string(kNotIntegerErr));
  const Reply invalid = Reply::Error("ERR invalid expire time in '" +
                                     std::string(Lookup(argv[0])->name) + "' command");
  if (seconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) return invalid;
    when *= 1000;
  }
  if (when > LLONG_MAX - basetime_ms) return invalid;
  when += basetime_ms;

  Object* o = LookupWrite(key);
  if (o == nullptr) return Reply::Integer(0);

  if (flags != 0) {
    const int64_t current = o->expire_ms;
    if ((flags & kExpireNx) && current != -1) return Reply::Integer(0);
    if ((flags & kExpireXx) && current == -1) return Reply::Integer(0);
    // No TTL counts as an infinite one: GT always fails, LT always passes.
    if ((flags & kExpireGt) && (when <= current || current == -1)) return Reply::Integer(0);
    if ((flags & kExpireLt) && current != -1 && when >= current) return Reply::Integer(0);
  }

  if (when <= now_ms_ && !loading_ && !replica_) {
    DeleteKey(key);
    ++dirty_;
    if (propagating_) RewritePropagation({"DEL", key});
    return Reply::Integer(1);
  }
  SetExpire(key, *o, when);
  SignalModifiedKey(key);
  ++dirty_;
  // A PEXPIREAT already says it (as typed, in whatever case).
  if (basetime_ms != 0 || seconds) {
    Command propagated = argv;
    propagated[0] = "PEXPIREAT";
    propagated[2] = std::to_string(when);
    if (propagating_) RewritePropagation(std::move(propagated));
  }
  return Reply::Integer(1);
}

// ttlGenericCommand(): -2 without the key, -1 without a TTL, otherwise the
// time left, never negative; TTL rounds milliseconds to the nearest second.
Reply VirtualRedis::TtlGeneric(const Command& argv, bool output_ms) {
  const Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Integer(-2);
  if (o->expire_ms < 0) return Reply::Integer(-1);
  int64_t ttl = o->expire_ms - now_ms_;
  if (ttl < 0) ttl = 0;
  return Reply::Integer(output_ms ? ttl : (ttl + 500) / 1000);
}

Reply VirtualRedis::TtlCommand(const Command& argv) { return TtlGeneric(argv, false); }
Reply VirtualRedis::PttlCommand(const Command& argv) { return TtlGeneric(argv, true); }

// persistCommand(): 1 only if a TTL was removed.
Reply VirtualRedis::PersistCommand(const Command& argv) {
  Object* o = LookupWrite(argv[1]);
  if (o == nullptr || o->expire_ms < 0) return Reply::Integer(0);
  SetExpire(argv[1], *o, -1);
  SignalModifiedKey(argv[1]);
  ++dirty_;
  return Reply::Integer(1);
}

}  // namespace locksim
