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
    if (conn_->channels.insert(argv[i]).second) subscribers_[argv[i]].insert(conn_id_);
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
    if (conn_->channels.erase(ch) > 0) Unsubscribed(conn_id_, ch);
    notices.push_back(Notice("unsubscribe", &ch, static_cast<int64_t>(conn_->channels.size())));
  }
  Reply first = std::move(notices.front());
  for (size_t i = 1; i < notices.size(); ++i) QueuePush(conn_, std::move(notices[i]));
  return first;
}

void VirtualRedis::Unsubscribed(ConnId conn, const std::string& channel) {
  auto it = subscribers_.find(channel);
  if (it == subscribers_.end()) return;
  it->second.erase(conn);
  if (it->second.empty()) subscribers_.erase(it);
}

Reply VirtualRedis::PublishCommand(const Command& argv) {
  auto it = subscribers_.find(argv[1]);
  if (it == subscribers_.end()) return Reply::Integer(0);
  // In id order, as the connections are kept.
  for (ConnId id : it->second) {
    QueuePush(&conns_.at(id), Reply::Array({Reply::String("message"), Reply::String(argv[1]),
                                            Reply::String(argv[2])}));
  }
  return Reply::Integer(static_cast<int64_t>(it->second.size()));
}

}  // namespace locksim
