// The one conversion of a hiredis reply into our Reply: done once, at the
// socket, so that no hiredis ownership reaches lock code.
#ifndef LOCKSIM_SIM_REAL_HIREDIS_REPLY_H_
#define LOCKSIM_SIM_REAL_HIREDIS_REPLY_H_

#include <hiredis/hiredis.h>

#include <string>
#include <vector>

#include "sim/core/reply.h"

namespace locksim {

inline Reply ReplyFromHiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS: return Reply::Status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR: return Reply::Error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER: return Reply::Integer(r->integer);
    case REDIS_REPLY_STRING: return Reply::String(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> elements;
      for (size_t i = 0; i < r->elements; ++i) {
        elements.push_back(ReplyFromHiredis(r->element[i]));
      }
      return Reply::Array(std::move(elements));
    }
    default: return Reply::Nil();  // REDIS_REPLY_NIL
  }
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_HIREDIS_REPLY_H_
