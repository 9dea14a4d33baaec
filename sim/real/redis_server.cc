#include "sim/real/redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/interrupt.h"

namespace locksim {
namespace {

// Asks the kernel for a free port on 127.0.0.1. Another process may take it
// before redis-server binds it; Start() then retries with a new one.
int PickPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw HarnessError("socket(): cannot pick a port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw HarnessError("bind(127.0.0.1:0): cannot pick a port");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::string ReadTail(const std::string& path, size_t max) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() > max ? s.substr(s.size() - max) : s;
}

// What /proc says of a process that neither answers nor exits: its state
// and kernel wait channel, and whether it got as far as exec'ing `binary`
// (if not, it is stuck in the forked copy of the harness).
std::string DescribeProcess(pid_t pid, const std::string& binary) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::string stat = ReadTail(proc + "/stat", 4096);
  const size_t paren = stat.rfind(')');
  const std::string state = paren != std::string::npos && paren + 2 < stat.size()
                                ? stat.substr(paren + 2, 1)
                                : "?";
  std::string wchan = ReadTail(proc + "/wchan", 200);
  std::error_code exe_ec, want_ec;
  const auto exe = std::filesystem::read_symlink(proc + "/exe", exe_ec);
  const auto want = std::filesystem::canonical(binary, want_ec);
  const std::string exec = exe_ec || want_ec ? "unknown"
                           : exe == want    ? "yes"
                                            : "no, still " + exe.string();
  return "pid " + std::to_string(pid) + ", state " + state +
         ", wchan " + (wchan.empty() ? "?" : wchan) + ", exec'd " + exec;
}

// Whether our server (process `pid`) answers on `port`: another process
// may have taken the port between PickPort() and the server's bind, and
// ctest runs tests in parallel, so the answer must come from our pid.
bool Pings(int port, pid_t pid) {
  timeval tv{0, 200000};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port, tv);
  bool ok = false;
  if (c != nullptr && c->err == 0) {
    auto* r = static_cast<redisReply*>(redisCommand(c, "INFO server"));
    ok = r != nullptr && r->type == REDIS_REPLY_STRING &&
         std::string(r->str, r->len).find("process_id:" + std::to_string(pid) + "\r\n") !=
             std::string::npos;
    if (r != nullptr) freeReplyObject(r);
  }
  if (c != nullptr) redisFree(c);
  return ok;
}

}  // namespace

std::string RedisServer::Resolve(const std::string& binary) {
  if (binary.find('/') != std::string::npos) {
    return access(binary.c_str(), X_OK) == 0 ? binary : std::string();
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::stringstream ss(dirs);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + binary;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

void RedisServer::RemoveStaleFolders() {
  std::error_code ec;
  const auto tmp = std::filesystem::temp_directory_path(ec);
  if (ec) return;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("locksim-redis-", 0) != 0 || !entry.is_directory(ec)) continue;
    std::ifstream in(entry.path() / "owner.pid");
    long pid = 0;
    if (!(in >> pid) || pid <= 0) continue;  // not (yet) claimed: leave it
    // A live owner keeps its folder; ESRCH means the harness is gone (its
    // server died with it, by the parent-death signal).
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove_all(entry.path(), ec);
  }
}

std::unique_ptr<RedisServer> RedisServer::Start(const RedisServerOptions& options) {
  RemoveStaleFolders();
  const std::string binary = Resolve(options.binary);
  if (binary.empty() && options.binary.find("sentinel") != std::string::npos) {
    throw InputError("--redis-sentinel: \"" + options.binary +
                     "\" not found; failover on the real backend needs redis-sentinel "
                     "(run `make deps`, or `apt-get install redis-sentinel`)");
  }
  if (binary.empty()) {
    throw InputError("--redis-server: \"" + options.binary +
                     "\" not found; the real backend needs redis-server "
                     "(run `make deps`, or `apt-get install redis-server`, or "
                     "pass --redis-server PATH)");
  }
  std::string last_error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::unique_ptr<RedisServer> server(new RedisServer());
    std::string tmpl = (std::filesystem::temp_directory_path() / "locksim-redis-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw HarnessError("mkdtemp(" + tmpl + ") failed");
    // Absolute: the server chdirs into --dir while it reads its options,
    // so a relative TMPDIR would leave the log and the Unix socket (bound
    // after that) pointing elsewhere.
    server->dir_ = std::filesystem::absolute(tmpl).string();
    // Who owns the folder: the next harness removes it if this one dies
    // without cleaning up (SIGKILL), see RemoveStaleFolders().
    std::ofstream(server->dir_ + "/owner.pid") << getpid() << "\n";
    server->options_ = options;
    if (options.movable_clock) {
      server->clock_ = std::make_unique<ClockControl>(server->dir_ + "/clock");
      server->options_.clock_shim = ClockControl::ShimPath();
      server->options_.clock_file = server->clock_->path();
    }
    server->binary_ = binary;
    server->port_ = PickPort();
    server->args_.clear();
    if (!options.config_text.empty()) {
      std::ofstream(server->dir_ + "/redis.conf") << options.config_text;
      server->args_.push_back(server->dir_ + "/redis.conf");
    }
    const std::vector<std::string> defaults = {"--port",       std::to_string(server->port_),
                     "--bind",       "127.0.0.1",
                     "--protected-mode", "yes",
                     "--save",       "",
                     "--appendonly", "no",
                     "--dir",        server->dir_,
                     "--logfile",    server->dir_ + "/redis.log",
                     "--daemonize",  "no",
                     "--enable-debug-command", "local"};
    server->args_.insert(server->args_.end(), defaults.begin(), defaults.end());
    server->unix_socket_.clear();
    if (options.unix_socket) {
      const std::string path = server->dir_ + "/redis.sock";
      if (path.size() < sizeof(sockaddr_un::sun_path)) {
        server->unix_socket_ = path;
        const std::vector<std::string> unix_args = {"--unixsocket", path, "--unixsocketperm", "700"};
        server->args_.insert(server->args_.end(), unix_args.begin(), unix_args.end());
      }
    }
    for (const std::string& a : options.extra_args) server->args_.push_back(a);
    const Launched launched = server->Launch({}, &last_error);
    if (launched == Launched::kUp) return server;
    // Again, on a new port and folder, when another process took the port
    // between PickPort() and the bind, or when the process stayed silent
    // (seen once, under ASan on a loaded CI machine, with an empty log:
    // what /proc said of it is in the message if every attempt fails).
    if (launched == Launched::kExited &&
        last_error.find("Address already in use") == std::string::npos) {
      break;
    }
  }
  throw HarnessError("redis-server did not start on 127.0.0.1: " + last_error);
}

RedisServer::Launched RedisServer::Launch(const std::vector<std::string>& extra,
                                          std::string* why) {
  std::vector<std::string> args = {binary_};
  args.insert(args.end(), args_.begin(), args_.end());
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment is built here, not in the child: after fork() in a
  // process with threads (the proxy's), the child may only make
  // async-signal-safe calls, and setenv() allocates.
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (!options_.clock_shim.empty() && (entry.rfind("LD_PRELOAD=", 0) == 0 ||
                                         entry.rfind("LOCKSIM_CLOCK_FILE=", 0) == 0)) {
      continue;
    }
    env.push_back(entry);
  }
  if (!options_.clock_shim.empty()) {
    env.push_back("LD_PRELOAD=" + options_.clock_shim);
    env.push_back("LOCKSIM_CLOCK_FILE=" + options_.clock_file);
  }
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw HarnessError("fork() failed");
  if (pid == 0) {
    // The server must not outlive the harness, even after a SIGKILL.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    InterruptGuard::ResetInChild();
    // No descriptor of the harness (client sockets, files) leaks into the
    // server: a restarted server must not keep old connections open.
    close_range(3, ~0U, 0);
    execve(binary_.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  pid_ = pid;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      pid_ = -1;
      *why = ReadTail(dir_ + "/redis.log", 600);
      return Launched::kExited;
    }
    if (Pings(port_, pid)) return Launched::kUp;
    InterruptGuard::Poll(nullptr, 0, std::chrono::milliseconds(5));  // a sleep a signal ends
  }
  // Alive but silent: not ours to keep. What it was doing, for the message.
  *why = "no answer to PING within 10s (" + DescribeProcess(pid_, binary_) + ")";
  const std::string log = ReadTail(dir_ + "/redis.log", 600);
  if (!log.empty()) *why += "; its log ends: " + log;
  kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return Launched::kSilent;
}

void RedisServer::Pause() {
  if (pid_ > 0) kill(pid_, SIGSTOP);
}

void RedisServer::Resume() {
  if (pid_ > 0) kill(pid_, SIGCONT);
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void RedisServer::Restart(const std::vector<std::string>& extra_args) {
  Kill();
  std::string why;
  // Once more on silence (see Start); the port and folder stay the same.
  Launched launched = Launch(extra_args, &why);
  if (launched == Launched::kSilent) launched = Launch(extra_args, &why);
  if (launched != Launched::kUp) {
    throw HarnessError("redis-server did not restart on 127.0.0.1:" + std::to_string(port_) +
                       ": " + why);
  }
}

void RedisServer::Stop() {
  Kill();
  clock_.reset();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

RedisServer::~RedisServer() { Stop(); }

}  // namespace locksim
