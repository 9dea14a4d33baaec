// ProxyHub: the real backend's network, a loopback TCP proxy of our own
// between each client and each node (and between a replica and its master),
// through which the harness delays, loses and partitions real TCP traffic.
//
// A link is one listening socket on 127.0.0.1:<kernel-picked port>; every
// connection accepted on it is forwarded to 127.0.0.1:<target port>. The
// proxy connects to the target only when a client connects (non-blocking),
// so a node that is down refuses through the proxy too: the client's
// connection is reset.
//
// Faults take effect at once and apply to the link's existing and new
// connections, with the virtual network's semantics (virtual_world.h):
//   * partition: bytes are held both ways and delivered in order on heal,
//     unless the sender gave up meanwhile (the client closed: what it had
//     sent is dropped and the node's side closed without delivering it);
//   * delay: each chunk is forwarded `extra` after the proxy read it, in
//     order, per direction;
//   * loss: a chunk is lost with the given probability and, as TCP does,
//     resent after a retransmission timeout of 200 ms that doubles with each
//     consecutive loss (up to 120 s); later bytes wait behind it.
// A node that closes or dies has what it sent flushed to the client (under
// the link's faults), then the client's side is closed.
//
// Threading: the hub runs one thread of its own (a ppoll() loop), inside the
// harness process so that it dies with the harness, even on SIGKILL, and
// needs no cleanup beyond its destructor. Every method may be called from
// any thread; all socket I/O happens on the hub's thread, except binding
// the listening socket in Open(). The hub's thread blocks every signal, so
// SIGINT/SIGTERM keep reaching the harness's main thread (InterruptGuard).
// Nothing listens or connects outside 127.0.0.1.
//
// A tapped link (Tap) also reads what passes: each command a client sends,
// when the proxy reads it from the client, and each reply, just before the
// proxy starts writing it to the client, decoded with hiredis's reader (the RESP2 a
// third-party lock library speaks). TakeTapped hands them to the harness's
// thread; tapped_fd() is readable while some wait. A connection whose
// bytes are not RESP2 (a RESP3 HELLO 3 session, say) is tapped no further,
// and says so once.
#ifndef LOCKSIM_SIM_REAL_PROXY_H_
#define LOCKSIM_SIM_REAL_PROXY_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sim/core/reply.h"
#include <vector>

#include "sim/core/random.h"
#include "sim/core/time.h"

namespace locksim {

class ProxyHub {
 public:
  // Starts the hub's thread; `seed` drives the loss draws (which chunks are
  // lost still depends on how the kernel splits the stream into reads).
  explicit ProxyHub(uint64_t seed);
  // Stops the thread and closes every socket (listening, client, node) with
  // whatever data is held: it returns without waiting for any peer.
  ~ProxyHub();
  ProxyHub(const ProxyHub&) = delete;
  ProxyHub& operator=(const ProxyHub&) = delete;

  // Opens a link forwarding to 127.0.0.1:target_port and returns its id
  // (0, 1, 2... in order). `name` (e.g. "A->redis0") is for messages.
  // Throws HarnessError when no listening socket can be bound.
  int Open(std::string name, int target_port);
  // Where to connect to reach the link's target.
  int Port(int link) const;
  // "127.0.0.1:<port>", as the kernel reports the bound address.
  std::string ListenAddress(int link) const;
  const std::string& Name(int link) const;
  // New connections go to `target_port` (a node restarted on a new port, or
  // the replica promoted in a failover); live ones keep their node.
  void Retarget(int link, int target_port);

  void SetPartitioned(int link, bool on);
  void SetDelay(int link, Nanos extra_one_way);
  // to_target: client -> node (replica -> master on a replication link);
  // to_client: node -> client (master -> replica: the replication lag).
  void SetDelay(int link, Nanos to_target, Nanos to_client);
  // REQUIRES: 0 <= percent <= 100.
  void SetLoss(int link, int percent);
  // Clears partition, delay and loss; held bytes go out in order.
  void Heal(int link);
  // Resets every live connection of the link, both sides (RST), dropping
  // what the proxy held for them. Returns once they are closed.
  void CutConnections(int link);
  // Connections accepted on the link whose two sides are not both closed.
  size_t LiveConnections(int link) const;
  // The last unexpected socket error on the hub's thread (a refused connect
  // is expected: a node is down), or empty.
  std::string LastError() const;

  // What a tapped link carried (see the top of this file).
  struct Tapped {
    enum class Kind { kCommand, kReply, kUndecodable };
    int link = 0;
    uint64_t conn = 0;  // the connection's number on the hub (per link, from 1)
    Kind kind = Kind::kCommand;
    Command command;    // kCommand
    Reply reply;        // kReply; kUndecodable: an error saying why
  };
  // Decode what passes on `link` from now on (connections accepted later).
  void Tap(int link);
  // What was tapped since the last call, in the order it passed.
  std::vector<Tapped> TakeTapped();
  // An eventfd, readable while TakeTapped has something.
  int tapped_fd() const { return tapped_fd_; }

 private:
  struct Chunk;
  struct Pipe;
  struct Conn;
  struct Link;
  struct TapReader;

  // The hub's thread.
  void Loop();
  void Accept(Link& link);
  void StartConnect(Link& link, Conn& conn);
  void FinishConnect(Conn& conn);
  // Appends what it read to *copy, when given.
  void ReadInto(Pipe& pipe, int fd, std::string* copy = nullptr);
  // Decodes bytes of a tapped connection (request: client -> node).
  void TapBytes(Link& link, Conn& conn, bool request, const char* data, size_t n);
  void Flush(Link& link, Conn& conn, Pipe& pipe, int fd);
  // Applies the closing rules after I/O; closes what is finished.
  void Settle(Link& link, Conn& conn);
  // When the head of `pipe` may next be written (steady-clock nanoseconds),
  // or -1 when it waits for nothing the clock brings.
  int64_t NextDue(const Link& link, const Conn& conn, const Pipe& pipe) const;
  int64_t NowNanos() const;
  Link& At(int link) const;
  void Wake();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Link>> links_;  // by id; guarded by mu_
  Random random_;                             // loss draws; guarded by mu_
  std::string last_error_;                    // guarded by mu_
  uint64_t requested_ = 0;  // cut requests made; guarded by mu_
  uint64_t served_ = 0;     // cut requests the loop has carried out
  bool stop_ = false;
  int wake_fd_ = -1;  // eventfd: the loop polls it
  std::vector<Tapped> tapped_;  // guarded by mu_
  int tapped_fd_ = -1;          // eventfd: counts what tapped_ holds
  std::thread thread_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_PROXY_H_
