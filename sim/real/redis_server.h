// RedisServer: one real redis-server process owned by the harness.
//
// It listens on 127.0.0.1 only, on a port the harness picks, with its data in
// a fresh temporary folder and no persistence. It is stopped (SIGKILL, then
// reaped) and its folder removed when the object is destroyed, which covers
// normal exits and errors; if the harness itself dies, the kernel kills the
// server too (PR_SET_PDEATHSIG), and the next harness to start a server
// removes the folder.
#ifndef LOCKSIM_SIM_REAL_REDIS_SERVER_H_
#define LOCKSIM_SIM_REAL_REDIS_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>

namespace locksim {

struct RedisServerOptions {
  std::string binary = "redis-server";  // a path, or a name to find on PATH
  // When set: the clock shim library (LD_PRELOAD) and its control file, so
  // the harness can move or freeze this server's wall clock.
  std::string clock_shim;
  std::string clock_file;
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
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }

  // Finds `binary` as execvp would; empty when absent.
  static std::string Resolve(const std::string& binary);
  // Removes the folders of servers whose harness died without cleaning up
  // (killed with SIGKILL): each folder names its owner's pid. Start() calls it.
  static void RemoveStaleFolders();

 private:
  RedisServer() = default;
  void Stop();

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_REDIS_SERVER_H_
