#include "sim/real/adapter_protocol.h"

namespace locksim {
namespace {

// The field a reply to `op` must carry, as a boolean.
const char* ResultField(const std::string& op) {
  if (op == "acquire") return "acquired";
  if (op == "release") return "released";
  if (op == "extend") return "extended";
  return nullptr;
}

}  // namespace

std::string QuoteLine(const std::string& line) {
  return "\"" + (line.size() > 200 ? line.substr(0, 200) + "..." : line) + "\"";
}

std::string CheckHelloReply(const nlohmann::json& reply) {
  if (!reply.contains("ok") || !reply["ok"].is_boolean()) {
    return "answered hello without \"ok\": " + reply.dump();
  }
  if (!reply["ok"].get<bool>()) return "refused hello: " + reply.dump();
  return "";
}

std::string CheckAdapterLine(const std::string& line, const DueRequest* due,
                             nlohmann::json* reply) {
  *reply = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!reply->is_object()) return "sent a line that is not a JSON object: " + QuoteLine(line);
  if (due == nullptr) return "sent a reply to no request: " + QuoteLine(line);
  if (due->id == 0) return CheckHelloReply(*reply);
  const std::string request = "request " + std::to_string(due->id) + " (" + due->op + ")";
  if (!reply->contains("id") || (*reply)["id"] != due->id) {
    return "answered " + QuoteLine(line) + " when the reply to " + request + " was due";
  }
  if (!reply->contains("ok") || !(*reply)["ok"].is_boolean()) {
    return "answered " + request + " without \"ok\": " + QuoteLine(line);
  }
  if (!(*reply)["ok"].get<bool>()) return "could not carry out " + request + ": " + QuoteLine(line);
  const char* field = ResultField(due->op);
  if (field != nullptr && (!reply->contains(field) || !(*reply)[field].is_boolean())) {
    return "answered " + request + " without a boolean \"" + field + "\": " + QuoteLine(line);
  }
  return "";
}

}  // namespace locksim
