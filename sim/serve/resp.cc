#include "sim/serve/resp.h"

#include <string_view>

namespace locksim {
namespace {

// A status or error line ends at CRLF, so it cannot carry one. Redis turns
// newlines in an error into spaces (addReplyErrorLength's callers); do the
// same for any text that reaches the wire this way, e.g. a script's
// {err = "a\nb"}, so that one reply can never be read as two.
void AppendLine(char type, std::string_view text, std::string* out) {
  out->push_back(type);
  for (char ch : text) out->push_back(ch == '\r' || ch == '\n' ? ' ' : ch);
  out->append("\r\n");
}

}  // namespace

void AppendResp(const Reply& reply, std::string* out, NilAs nil) {
  switch (reply.type) {
    case Reply::Type::kStatus:
      AppendLine('+', reply.str, out);
      return;
    case Reply::Type::kError:
      AppendLine('-', reply.str, out);
      return;
    case Reply::Type::kInteger:
      AppendLine(':', std::to_string(reply.integer), out);
      return;
    case Reply::Type::kString:
      AppendLine('$', std::to_string(reply.str.size()), out);
      out->append(reply.str);
      out->append("\r\n");
      return;
    case Reply::Type::kNil:
      out->append(nil == NilAs::kArray ? "*-1\r\n" : "$-1\r\n");
      return;
    case Reply::Type::kArray:
      AppendLine('*', std::to_string(reply.elements.size()), out);
      for (const Reply& e : reply.elements) AppendResp(e, out);
      return;
  }
}

}  // namespace locksim
