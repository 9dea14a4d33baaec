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

Reply VirtualRedis::GetCommand(const Command& argv) {
  const Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Nil();
  if (o->type != Object::Type::kString) return Reply::Error(std::string(kWrongTypeErr));
  return Reply::String(o->str);
}

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
    const Reply invalid =
        Reply::Error("ERR invalid expire time in 'set' command");
    if (v <= 0 || (seconds && v > INT64_MAX / 1000)) return invalid;
    if (seconds) v *= 1000;
    if (flags & (kEx | kPx)) {
      if (v > INT64_MAX - now_ms_) return invalid;  // would overflow
      v += now_ms_;
    }
    when = v;
  }

  // setGenericCommand().
  const std::string& key = argv[1];
  const Object* existing = LookupWrite(key);
  Reply old = Reply::Nil();
  if (flags & kGet) {
    if (existing != nullptr && existing->type != Object::Type::kString) {
      return Reply::Error(std::string(kWrongTypeErr));
    }
    if (existing != nullptr) old = Reply::String(existing->str);
  }
  if ((flags & kNx && existing != nullptr) || (flags & kXx && existing == nullptr)) {
    return flags & kGet ? old : Reply::Nil();
  }
  Object value;
  value.str = argv[2];
  value.expire_ms = when;
  SetKey(key, std::move(value), (flags & kKeepTtl) != 0);
  ++dirty_;
  // Replicas and the AOF get an absolute expiry: SET key value PXAT ms.
  if (when >= 0 && !(flags & kPxAt)) {
    RewritePropagation({"SET", key, argv[2], "PXAT", std::to_string(when)});
  }
  return flags & kGet ? old : Reply::Ok();
}

}  // namespace locksim
