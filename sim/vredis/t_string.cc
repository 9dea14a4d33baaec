// String commands, as redis t_string.c.
#include <algorithm>
#include <cctype>

#include "sim/vredis/server.h"

namespace locksim {
namespace {

bool Is(std::string_view arg, std::string_view word) {
  return arg.size() == word.size() &&
         std::equal(arg.begin(), arg.end(), word.begin(), [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == b;
         });
}

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
  const Entry* e = LookupKey(argv[1]);
  if (e == nullptr) return Reply::Nil();
  return Reply::String(e->value);
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

  const std::string& key = argv[1];
  Entry* existing = LookupKey(key);
  Reply old = Reply::Nil();
  if (flags & kGet) {
    // GET only works on strings; only strings exist in this model so far.
    if (existing != nullptr) old = Reply::String(existing->value);
  }
  if ((flags & kNx && existing != nullptr) || (flags & kXx && existing == nullptr)) {
    return flags & kGet ? old : Reply::Nil();
  }
  const int64_t keep = (flags & kKeepTtl) && existing ? existing->expire_ms : -1;
  if (when >= 0 && (flags & (kExAt | kPxAt)) && when <= now_ms_) {
    // checkAlreadyExpired(): setting a key that is already expired deletes it.
    dict_.erase(key);
  } else {
    Entry& e = dict_[key];
    e.value = argv[2];
    e.expire_ms = when >= 0 ? when : keep;
  }
  return flags & kGet ? old : Reply::Ok();
}

}  // namespace locksim
