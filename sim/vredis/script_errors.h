// Error texts as Redis formats them (networking.c addReplyError*, sds.c),
// shared by the two halves of scripting: eval.cc (EVAL, SCRIPT, the script
// cache, as Redis's eval.c) and script_lua.cc (the Lua state, the sandbox,
// the redis.* API and the conversions, as Redis's script_lua.c). Internal
// to sim/vredis/.
#ifndef LOCKSIM_SIM_VREDIS_SCRIPT_ERRORS_H_
#define LOCKSIM_SIM_VREDIS_SCRIPT_ERRORS_H_

#include <cctype>
#include <string>
#include <string_view>

#include "sim/core/reply.h"

namespace locksim {

// ---------------------------------------------------------------------------
// Error texts as Redis formats them.
// ---------------------------------------------------------------------------

// sdstrim(s, "\r\n"): drops those characters from both ends.
inline std::string TrimNewlines(std::string s) {
  const size_t begin = s.find_first_not_of("\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of("\r\n");
  return s.substr(begin, end - begin + 1);
}

// sdsmapchars(s, "\r\n", "  ", 2): an error or status line must not break
// the protocol.
inline std::string MapNewlines(std::string s) {
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

// The text of a C string: Redis builds most error texts with sdsnew() or
// "%s", which stop at the first NUL byte.
inline std::string CString(std::string_view s) { return std::string(s.substr(0, s.find('\0'))); }

// addReplyErrorFormat(c, "%s", text) (networking.c): trims and maps
// newlines, then addReplyErrorLength() uses the text's own code when it
// starts with '-' and "ERR" otherwise.
inline Reply ErrorReplyFormat(std::string text) {
  text = MapNewlines(TrimNewlines(std::move(text)));
  if (!text.empty() && text[0] == '-') return Reply::Error(text.substr(1));
  return Reply::Error("ERR " + text);
}

// addReplyErrorSds(): the same, without trimming (the newline mapping is
// done by the 7.0.15 reply path, as the oracle shows).
inline Reply ErrorReplySds(const std::string& text) {
  std::string t = MapNewlines(text);
  if (!t.empty() && t[0] == '-') return Reply::Error(t.substr(1));
  return Reply::Error("ERR " + t);
}

inline Reply NoScriptError() { return Reply::Error("NOSCRIPT No matching script. Please use EVAL."); }

inline std::string ToLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::string ToUpper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_VREDIS_SCRIPT_ERRORS_H_
