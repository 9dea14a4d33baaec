#include "sim/vredis/server.h"

#include <algorithm>
#include <cctype>

#include "sim/vredis/script_lua.h"

namespace locksim {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// As rejectCommandFormat() in redis server.c: newlines in an error would
// break the protocol, so they become spaces.
std::string NoNewlines(std::string s) {
  std::replace(s.begin(), s.end(), '\r', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

bool StringToInt64(std::string_view s, int64_t* out) {
  // Redis util.c string2ll(): rejects empty strings, leading zeros, '+',
  // spaces, "-0" and anything that overflows.
  if (s.empty() || s.size() >= 21) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    if (++i == s.size()) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

VirtualRedis::VirtualRedis() : lua_(std::make_unique<LuaScripting>(this)) {}
VirtualRedis::~VirtualRedis() = default;

const VirtualRedis::CommandSpec* VirtualRedis::Lookup(std::string_view name) {
  // The command table, as redis commands.def: name, arity, implementation.
  static const CommandSpec kCommands[] = {
      {"get", 2, &VirtualRedis::GetCommand},
      {"set", -3, &VirtualRedis::SetCommand},
      {"del", -2, &VirtualRedis::DelCommand},
      {"pttl", 2, &VirtualRedis::PttlCommand},
      {"eval", -3, &VirtualRedis::EvalCommand},
      {"ping", -1, &VirtualRedis::PingCommand},
  };
  for (const CommandSpec& spec : kCommands) {
    if (EqualsIgnoreCase(spec.name, name)) return &spec;
  }
  return nullptr;
}

Reply VirtualRedis::Execute(const Command& argv, int64_t now_ms) {
  now_ms_ = now_ms;
  return Dispatch(argv, /*from_script=*/false);
}

Reply VirtualRedis::Dispatch(const Command& argv, bool from_script) {
  const CommandSpec* spec = argv.empty() ? nullptr : Lookup(argv[0]);
  const int argc = static_cast<int>(argv.size());
  if (spec == nullptr) {
    if (from_script) {
      return Reply::Error("ERR Unknown Redis command called from script");
    }
    // processCommand() in redis server.c.
    std::string args;
    for (int i = 1; i < argc && args.size() < 128; ++i) {
      size_t room = 128 - args.size();
      args += "'" + argv[i].substr(0, room) + "' ";
    }
    std::string name = argv.empty() ? "" : argv[0].substr(0, 128);
    return Reply::Error(NoNewlines("ERR unknown command '" + name +
                                   "', with args beginning with: " + args));
  }
  if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
    if (from_script) {
      return Reply::Error(
          "ERR Wrong number of args calling Redis command from script");
    }
    return Reply::Error("ERR wrong number of arguments for '" +
                        std::string(spec->name) + "' command");
  }
  if (from_script && spec->handler == &VirtualRedis::EvalCommand) {
    return Reply::Error(
        "ERR This Redis command is not allowed from script");
  }
  return (this->*spec->handler)(argv);
}

}  // namespace locksim
