// RESP2 encoding of a Reply, for `locksim serve`. hiredis parses RESP but has
// no encoder for replies, so this is the one piece of the protocol locksim
// writes itself; requests are parsed by hiredis's redisReader.
#ifndef LOCKSIM_SIM_SERVE_RESP_H_
#define LOCKSIM_SIM_SERVE_RESP_H_

#include <string>

#include "sim/core/reply.h"

namespace locksim {

// How a top-level Nil reply goes on the wire. RESP2 has two nils: the nil
// bulk string "$-1" (GET of a missing key, EVAL returning false) and the nil
// array "*-1" (EXEC aborted by WATCH). Reply has one Nil, so the caller,
// which knows the command, chooses; a Nil nested in an array is always
// "$-1", as Redis writes it (a missing key inside EXEC's replies, the channel
// of an UNSUBSCRIBE without channels).
enum class NilAs { kBulk, kArray };

// Appends `reply` in RESP2 to `out`.
void AppendResp(const Reply& reply, std::string* out, NilAs nil = NilAs::kBulk);

}  // namespace locksim

#endif  // LOCKSIM_SIM_SERVE_RESP_H_
