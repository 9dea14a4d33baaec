// TTL queries, as redis expire.c ttlGenericCommand().
#include "sim/vredis/server.h"

namespace locksim {

Reply VirtualRedis::PttlCommand(const Command& argv) {
  const Entry* e = LookupKey(argv[1]);
  if (e == nullptr) return Reply::Integer(-2);
  if (e->expire_ms < 0) return Reply::Integer(-1);
  int64_t ttl = e->expire_ms - now_ms_;
  return Reply::Integer(ttl < 0 ? 0 : ttl);
}

}  // namespace locksim
