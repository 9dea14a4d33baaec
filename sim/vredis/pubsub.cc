// Publish/subscribe (RESP2), as redis pubsub.c: enough for the unlock
// notifications of Redisson-style locks. A SUBSCRIBE or UNSUBSCRIBE of
// several channels answers with one array per channel: the first is the
// command's reply, the others are queued as pushes on the connection.
//
// Two things differ from Redis on purpose, both out of reach of a reply
// model: an UNSUBSCRIBE without channels goes through them in name order,
// where Redis walks its per-client dict (whose hash seed is random per
// process, so no fixed order exists to copy); and a SUBSCRIBE of several
// channels queued in MULTI puts its extra notices after EXEC's reply, where
// Redis writes them into the array EXEC announced, breaking the protocol.
// The differential test avoids both.
#include "sim/vredis/server.h"

namespace locksim {
namespace {

Reply Notice(const char* kind, const std::string* channel, int64_t count) {
  return Reply::Array({Reply::String(kind),
                       channel ? Reply::String(*channel) : Reply::Nil(),
                       Reply::Integer(count)});
}

}  // namespace

Reply VirtualRedis::SubscribeCommand(const Command& argv) {
  std::vector<Reply> notices;
  for (size_t i = 1; i < argv.size(); ++i) {
    conn_->channels.insert(argv[i]);
    notices.push_back(Notice("subscribe", &argv[i],
                             static_cast<int64_t>(conn_->channels.size())));
  }
  Reply first = std::move(notices.front());
  for (size_t i = 1; i < notices.size(); ++i) QueuePush(conn_, std::move(notices[i]));
  return first;
}

Reply VirtualRedis::UnsubscribeCommand(const Command& argv) {
  std::vector<std::string> channels(argv.begin() + 1, argv.end());
  if (channels.empty()) channels.assign(conn_->channels.begin(), conn_->channels.end());
  if (channels.empty()) return Notice("unsubscribe", nullptr, 0);
  std::vector<Reply> notices;
  for (const std::string& ch : channels) {
    conn_->channels.erase(ch);
    notices.push_back(Notice("unsubscribe", &ch, static_cast<int64_t>(conn_->channels.size())));
  }
  Reply first = std::move(notices.front());
  for (size_t i = 1; i < notices.size(); ++i) QueuePush(conn_, std::move(notices[i]));
  return first;
}

Reply VirtualRedis::PublishCommand(const Command& argv) {
  int64_t receivers = 0;
  for (auto& [id, c] : conns_) {
    if (!c.channels.contains(argv[1])) continue;
    QueuePush(&c, Reply::Array({Reply::String("message"), Reply::String(argv[1]),
                                Reply::String(argv[2])}));
    ++receivers;
  }
  return Reply::Integer(receivers);
}

}  // namespace locksim
