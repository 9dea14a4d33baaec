// String commands, as redis t_string.c.
#include "sim/vredis/server.h"

namespace locksim {
namespace {

bool Is(std::string_view arg, std::string_view word) { return IsKeyword(arg, word); }

enum SetFlags : unsigned {
  kNx = 1 << 0,
  kXx = 1 << 1,
  kEx = 1 << 2,
  kPx = 1 << 3,
  kKeepTtl = 1 << 4,
  kGet = 1 << 5,
  kExAt = 1 << 6,
  kPxAt = 1 << 7,
};
constexpr unsigned kAnyExpire = kEx | kPx | kExAt | kPxAt;

}  // namespace

Reply VirtualRedis::GetGeneric(const std::string& key) {
  const Object* o = LookupRead(key);
  if (o == nullptr) return Reply::Nil();
  if (o->type != Object::Type::kString) return Reply::Error(std::string(kWrongTypeErr));
  return Reply::String(o->str);
}

Reply VirtualRedis::GetCommand(const Command& argv) { return GetGeneric(argv[1]); }

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL], parsed in
// the order of parseExtendedStringArgumentsOrReply(): options left to
// right, a conflicting or unknown option is a syntax error, and the expire
// value is validated only after every option parsed. An expire option may
// repeat itself ("EX 1 EX 0": the last one counts) but not mix with another.
Reply VirtualRedis::SetCommand(const Command& argv) {
  unsigned flags = 0;
  const std::string* expire = nullptr;
  for (size_t j = 3; j < argv.size(); ++j) {
    const std::string& opt = argv[j];
    const bool has_next = j + 1 < argv.size();
    if (Is(opt, "NX") && !(flags & kXx)) {
      flags |= kNx;
    } else if (Is(opt, "XX") && !(flags & kNx)) {
      flags |= kXx;
    } else if (Is(opt, "GET")) {
      flags |= kGet;
    } else if (Is(opt, "KEEPTTL") && !(flags & kAnyExpire)) {
      flags |= kKeepTtl;
    } else if (Is(opt, "EX") && !(flags & (kKeepTtl | (kAnyExpire & ~kEx))) &&
               has_next) {
      flags |= kEx;
      expire = &argv[++j];
    } else if (Is(opt, "PX") && !(flags & (kKeepTtl | (kAnyExpire & ~kPx))) &&
               has_next) {
      flags |= kPx;
      expire = &argv[++j];
    } else if (Is(opt, "EXAT") && !(flags & (kKeepTtl | (kAnyExpire & ~kExAt))) &&
               has_next) {
      flags |= kExAt;
      expire = &argv[++j];
    } else if (Is(opt, "PXAT") && !(flags & (kKeepTtl | (kAnyExpire & ~kPxAt))) &&
               has_next) {
      flags |= kPxAt;
      expire = &argv[++j];
    } else {
      return Reply::Error(std::string(kSyntaxErr));
    }
  }

  // getExpireMillisecondsOrReply().
  int64_t when = -1;
  if (expire != nullptr) {
    int64_t v;
    if (!StringToInt64(*expire, &v)) {
      return Reply::Error(std::string(kNotIntegerErr));
    }
    const bool seconds = flags & (kEx | kExAt);
    auto invalid = [] { return Reply::Error("ERR invalid expire time in 'set' command"); };
    if (v <= 0 || (seconds && v > INT64_MAX / 1000)) return invalid();
    if (seconds) v *= 1000;
    if (flags & (kEx | kPx)) {
      if (v > INT64_MAX - now_ms_) return invalid();  // would overflow
      v += now_ms_;
    }
    when = v;
  }

  // setGenericCommand(): GET's reply (or WRONGTYPE) comes before the NX /
  // XX check, and a SET that does not happen still answers GET's reply.
  const std::string& key = argv[1];
  Reply old = Reply::Nil();
  if (flags & kGet) {
    old = GetGeneric(key);
    if (old.IsError()) return old;
  }
  const bool found = LookupWrite(key) != nullptr;
  if ((flags & kNx && found) || (flags & kXx && !found)) {
    return flags & kGet ? old : Reply::Nil();
  }
  Object value;
  value.str = argv[2];
  value.expire_ms = when;
  SetKey(key, std::move(value), (flags & kKeepTtl) != 0);
  ++dirty_;
  if (when >= 0) {
    // Replicas and the AOF get an absolute expiry: SET key value PXAT ms,
    // whatever the options were (GET, NX and XX are dropped with them).
    if (propagating_) RewritePropagation({"SET", key, argv[2], "PXAT", std::to_string(when)});
  } else if (flags & kGet) {
    // Propagated without GET, which a replica has no use for.
    Command propagated;
    for (size_t j = 0; j < argv.size(); ++j) {
      if (j < 3 || !IsKeyword(argv[j], "GET")) propagated.push_back(argv[j]);
    }
    if (propagating_) RewritePropagation(std::move(propagated));
  }
  return flags & kGet ? old : Reply::Ok();
}

// setnxCommand(): SET NX answering 1 or 0; propagated as written.
Reply VirtualRedis::SetnxCommand(const Command& argv) {
  if (LookupWrite(argv[1]) != nullptr) return Reply::Integer(0);
  Object value;
  value.str = argv[2];
  SetKey(argv[1], std::move(value), /*keep_ttl=*/false);
  ++dirty_;
  return Reply::Integer(1);
}

// getsetCommand(): GET, then a plain SET (which drops any TTL); propagated
// as SET key value.
Reply VirtualRedis::GetsetCommand(const Command& argv) {
  Reply old = GetGeneric(argv[1]);
  if (old.IsError()) return old;
  Object value;
  value.str = argv[2];
  SetKey(argv[1], std::move(value), /*keep_ttl=*/false);
  ++dirty_;
  if (propagating_) RewritePropagation({"SET", argv[1], argv[2]});
  return old;
}

// getdelCommand(): GET, then a delete propagated as DEL key (only when
// there was a key to delete).
Reply VirtualRedis::GetdelCommand(const Command& argv) {
  Reply old = GetGeneric(argv[1]);
  if (old.IsError()) return old;
  if (DeleteKey(argv[1])) {
    ++dirty_;
    if (propagating_) RewritePropagation({"DEL", argv[1]});
  }
  return old;
}

// incrDecrCommand(): the value must be a string holding a strict int64
// (string2ll: no spaces, no '+', no leading zeros); a missing key counts as
// 0. The key keeps its TTL. Propagated as written.
Reply VirtualRedis::IncrDecr(const std::string& key, int64_t incr) {
  Object* o = LookupWrite(key);
  if (o != nullptr && o->type != Object::Type::kString) {
    return Reply::Error(std::string(kWrongTypeErr));
  }
  int64_t value = 0;
  if (o != nullptr && !StringToInt64(o->str, &value)) {
    return Reply::Error(std::string(kNotIntegerErr));
  }
  if ((incr < 0 && value < 0 && incr < INT64_MIN - value) ||
      (incr > 0 && value > 0 && incr > INT64_MAX - value)) {
    return Reply::Error(std::string(kOverflowErr));
  }
  value += incr;
  if (o != nullptr) {
    o->str = std::to_string(value);
    SignalModifiedKey(key);
  } else {
    Object fresh;
    fresh.str = std::to_string(value);
    SetKey(key, std::move(fresh), /*keep_ttl=*/false);
  }
  ++dirty_;
  return Reply::Integer(value);
}

Reply VirtualRedis::IncrCommand(const Command& argv) { return IncrDecr(argv[1], 1); }
Reply VirtualRedis::DecrCommand(const Command& argv) { return IncrDecr(argv[1], -1); }

// incrbyCommand(): the increment is checked before the key.
Reply VirtualRedis::IncrbyCommand(const Command& argv) {
  int64_t incr;
  if (!StringToInt64(argv[2], &incr)) return Reply::Error(std::string(kNotIntegerErr));
  return IncrDecr(argv[1], incr);
}

}  // namespace locksim
