// CLIENT and HELLO, as Redis 7.0's networking.c answers them over RESP2:
// what a client library sends as it connects (a name, its id, the
// protocol), so that any library can talk to `locksim serve`.
#include <cctype>

#include "sim/vredis/server.h"

namespace locksim {
namespace {

// validateClientName(): printable ASCII, no spaces.
bool ValidClientName(std::string_view name) {
  for (unsigned char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

// clientCommand(): the subcommands a library uses; the rest (LIST, KILL,
// PAUSE, ...) are not modelled and answer as unknown ones. SETINFO is
// Redis 7.2's: 7.0 does not know it either.
Reply VirtualRedis::ClientCommand(const Command& argv) {
  const std::string sub = Upper(argv[1]);
  if (sub == "ID" && argv.size() == 2) return Reply::Integer(conn_id_);
  if (sub == "GETNAME" && argv.size() == 2) {
    return conn_->name.empty() ? Reply::Nil() : Reply::String(conn_->name);
  }
  if (sub == "SETNAME" && argv.size() == 3) {
    if (!ValidClientName(argv[2])) {
      return Reply::Error("ERR Client names cannot contain spaces, newlines or special characters.");
    }
    conn_->name = argv[2];
    return Reply::Ok();
  }
  return Reply::Error("ERR unknown subcommand '" + argv[1] + "'. Try CLIENT HELP.");
}

// helloCommand(): protocol 2 only (RESP3 is not modelled: a client asking
// for it gets NOPROTO, as from a server that lacks it, and falls back).
Reply VirtualRedis::HelloCommand(const Command& argv) {
  if (argv.size() >= 2) {
    int64_t ver = 0;
    if (!StringToInt64(argv[1], &ver)) {
      return Reply::Error("ERR Protocol version is not an integer or out of range");
    }
    if (ver != 2) return Reply::Error("NOPROTO unsupported protocol version");
    for (size_t i = 2; i < argv.size(); ++i) {
      if (IsKeyword(argv[i], "SETNAME") && i + 1 < argv.size()) {
        if (!ValidClientName(argv[i + 1])) {
          return Reply::Error(
              "ERR Client names cannot contain spaces, newlines or special characters.");
        }
        conn_->name = argv[++i];
      } else {
        return Reply::Error("ERR Syntax error in HELLO option '" + argv[i] + "'");
      }
    }
  }
  return Reply::Array({Reply::String("server"), Reply::String("redis"),
                       Reply::String("version"), Reply::String("7.0.15"),
                       Reply::String("proto"), Reply::Integer(2),
                       Reply::String("id"), Reply::Integer(conn_id_),
                       Reply::String("mode"), Reply::String("standalone"),
                       Reply::String("role"), Reply::String(replica_ ? "replica" : "master"),
                       Reply::String("modules"), Reply::Array({})});
}

}  // namespace locksim
