// RedisServer: one real redis-server process owned by the harness.
//
// It listens on 127.0.0.1 only, on a port the harness picks (and, if asked,
// on a Unix socket inside its folder), with its data in a fresh temporary
// folder (no persistence unless `extra_args` asks for it).
// Faults act on it by real means: SIGSTOP/SIGCONT, kill -9 and a restart on
// the same port and folder (so it reloads what its persistence kept), and
// its wall clock through the clock shim. It is stopped (SIGKILL, then
// reaped) and its folder removed when the object is destroyed, which covers
// normal exits and errors; if the harness itself dies, the kernel kills the
// server too (PR_SET_PDEATHSIG), and the next harness to start a server
// removes the folder.
#ifndef LOCKSIM_SIM_REAL_REDIS_SERVER_H_
#define LOCKSIM_SIM_REAL_REDIS_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/real/clock_control.h"

namespace locksim {

struct RedisServerOptions {
  std::string binary = "redis-server";  // a path, or a name to find on PATH
  // When set: the clock shim library (LD_PRELOAD) and its control file, so
  // the harness can move or freeze this server's wall clock.
  std::string clock_shim;
  std::string clock_file;
  // Or: a clock the server owns, in its folder, reachable through clock().
  bool movable_clock = false;
  // When set: written to redis.conf in the server's folder and given as
  // the first argument (redis-sentinel needs a configuration file).
  std::string config_text;
  // More configuration, e.g. {"--appendonly", "yes"} or {"--replicaof",
  // "127.0.0.1", "6380"}; appended after the defaults, so they win.
  std::vector<std::string> extra_args;
  // Also listen on a Unix socket in the server's own folder (mode 700), for
  // the harness's observer: its events cost the kernel less than over TCP.
  // Skipped when the path would not fit a sockaddr_un (a very long TMPDIR).
  // A --unixsocket of extra_args is not this one: unix_socket() is empty.
  bool unix_socket = false;
};

class RedisServer {
 public:
  // Starts a server and waits until it answers PING. Throws InputError when
  // the binary cannot be found, HarnessError when it does not come up.
  static std::unique_ptr<RedisServer> Start(const RedisServerOptions& options);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  // The Unix socket's path (options.unix_socket), or empty.
  const std::string& unix_socket() const { return unix_socket_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }
  bool running() const { return pid_ > 0; }
  // The server's movable clock (options.movable_clock), or null.
  ClockControl* clock() { return clock_.get(); }

  // SIGSTOP / SIGCONT: a stop-the-world pause.
  void Pause();
  void Resume();
  // kill -9: the process is gone; its folder (and what it persisted) stays.
  void Kill();
  // Starts the process again on the same port, folder and configuration
  // (plus `extra_args`), and waits until it answers. Throws HarnessError.
  void Restart(const std::vector<std::string>& extra_args = {});

  // Finds `binary` as execvp would; empty when absent.
  static std::string Resolve(const std::string& binary);
  // Removes the folders of servers whose harness died without cleaning up
  // (killed with SIGKILL): each folder names its owner's pid. Start() calls it.
  static void RemoveStaleFolders();

 private:
  RedisServer() = default;
  void Stop();
  enum class Launched { kUp, kExited, kSilent };
  // Forks and execs the server with args_ (+ extra) and waits until it
  // answers PING on port_: kUp; kExited when it exited (its log's tail in
  // *why); kSilent when it neither answered nor exited within 10 s (it is
  // killed; what /proc said of it in *why).
  Launched Launch(const std::vector<std::string>& extra, std::string* why);

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string unix_socket_;
  std::string binary_;
  std::vector<std::string> args_;
  RedisServerOptions options_;
  std::unique_ptr<ClockControl> clock_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_REDIS_SERVER_H_
