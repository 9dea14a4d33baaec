// TTL queries, as redis expire.c ttlGenericCommand().
#include "sim/vredis/server.h"

namespace locksim {

Reply VirtualRedis::PttlCommand(const Command& argv) {
  const Object* o = LookupRead(argv[1]);
  if (o == nullptr) return Reply::Integer(-2);
  if (o->expire_ms < 0) return Reply::Integer(-1);
  int64_t ttl = o->expire_ms - now_ms_;
  return Reply::Integer(ttl < 0 ? 0 : ttl);
}

}  // namespace locksim
