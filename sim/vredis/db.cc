// The keyspace, as redis db.c: lookup with lazy expiry, DEL.
#include "sim/vredis/server.h"

namespace locksim {

VirtualRedis::Entry* VirtualRedis::LookupKey(const std::string& key) {
  auto it = dict_.find(key);
  if (it == dict_.end()) return nullptr;
  if (KeyIsExpired(it->second)) {
    // expireIfNeeded(): a master deletes the key on access.
    dict_.erase(it);
    return nullptr;
  }
  return &it->second;
}

Reply VirtualRedis::DelCommand(const Command& argv) {
  int64_t deleted = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (LookupKey(argv[i]) != nullptr) {
      dict_.erase(argv[i]);
      ++deleted;
    }
  }
  return Reply::Integer(deleted);
}

Reply VirtualRedis::PingCommand(const Command& argv) {
  if (argv.size() > 2) {
    return Reply::Error("ERR wrong number of arguments for 'ping' command");
  }
  if (argv.size() == 2) return Reply::String(argv[1]);
  return Reply::Status("PONG");
}

}  // namespace locksim
