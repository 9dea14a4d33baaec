#include "bench/peer.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/core/errors.h"

extern char** environ;

namespace locksim::bench {

namespace {

void Wait(pid_t pid, const std::string& name, rusage* usage = nullptr) {
  int status = 0;
  while (wait4(pid, &status, 0, usage) < 0 && errno == EINTR) {  // usage may be null
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw HarnessError(name + " failed (status " + std::to_string(status) + ")");
  }
}

}  // namespace

void RunToTerminal(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) {
    throw HarnessError("cannot run " + argv[0]);
  }
  Wait(pid, argv[0]);
}

// A process's CPU time so far (user + system), from /proc/<pid>/stat: the
// 14th and 15th fields, counted from after the command name's ")".
double ProcessCpuSeconds(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  std::ifstream in(path);
  std::string stat;
  std::getline(in, stat);
  const size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) throw HarnessError("cannot read " + path);
  std::istringstream fields(stat.substr(name_end + 2));  // from the 3rd field on
  std::string skipped;
  for (int i = 3; i < 14; ++i) fields >> skipped;
  double utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) throw HarnessError("cannot read " + path);
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double Seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

std::string RunCapture(const std::vector<std::string>& argv, rusage* usage) {
  int fds[2];
  if (pipe(fds) != 0) throw HarnessError("pipe() failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw HarnessError("cannot run " + argv[0]);
  }
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  Wait(pid, argv[0], usage);
  return out;
}

Peer::Peer(std::string redis_benchmark, const std::string& redis_server)
    : redis_benchmark_(std::move(redis_benchmark)) {
  RedisServerOptions options;
  options.binary = redis_server;
  server_ = RedisServer::Start(options);
}

double Peer::RequestsPerSecond(const std::vector<std::string>& command, int pipeline,
                               int clients, int requests, PeerCpu* cpu) {
  std::vector<std::string> argv = {redis_benchmark_, "-h", "127.0.0.1",
                                   "-p", std::to_string(port()),
                                   "-n", std::to_string(requests),
                                   "-c", std::to_string(clients),
                                   "-P", std::to_string(pipeline),
                                   "-r", "1000", "--csv"};
  argv.insert(argv.end(), command.begin(), command.end());
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
  commands_.push_back(line);
  // --csv: a header, then "name","rps",... for the command.
  rusage usage{};
  const double server_before = cpu != nullptr ? ProcessCpuSeconds(server_->pid()) : 0;
  std::istringstream out(RunCapture(argv, &usage));
  if (cpu != nullptr) {
    cpu->server_seconds += ProcessCpuSeconds(server_->pid()) - server_before;
    cpu->client_seconds += Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
    cpu->requests += requests;
  }
  std::string row;
  while (std::getline(out, row)) {
    if (row.rfind("\"test\"", 0) == 0) continue;
    const size_t a = row.find("\",\"");
    if (a == std::string::npos) continue;
    const size_t b = row.find('"', a + 3);
    return std::strtod(row.substr(a + 3, b - a - 3).c_str(), nullptr);
  }
  throw HarnessError("redis-benchmark printed no figure: " + line);
}

double Peer::PollingRequestsPerSecond(const std::vector<std::string>& command, int requests) {
  std::unique_ptr<redisContext, void (*)(redisContext*)> c(
      redisConnect("127.0.0.1", port()), [](redisContext* ctx) { redisFree(ctx); });
  if (c == nullptr || c->err) {
    throw HarnessError(std::string("polling client: cannot connect to the peer redis-server") +
                       (c != nullptr ? std::string(": ") + c->errstr : ""));
  }
  // Connected blocking, then switched to non-blocking: a read with nothing
  // to read returns at once (hiredis takes EAGAIN as "nothing yet").
  const int flags = fcntl(c->fd, F_GETFL);
  if (flags < 0 || fcntl(c->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw HarnessError("polling client: cannot make its socket non-blocking");
  }
  c->flags &= ~REDIS_BLOCK;
  auto fail = [&](const std::string& what) {
    throw HarnessError("polling client: " + what + (c->err ? std::string(": ") + c->errstr : ""));
  };
  // The command's arguments once; each request only writes its key's
  // twelve digits over __rand_int__'s, in place (no copy in the timed loop).
  std::vector<std::string> args = command;
  size_t rand_arg = args.size();
  size_t rand_at = 0;
  for (size_t a = 0; a < args.size() && rand_arg == args.size(); ++a) {
    rand_at = args[a].find("__rand_int__");
    if (rand_at != std::string::npos) rand_arg = a;
  }
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::minutes(1);
  for (int i = 0; i < requests; ++i) {
    if (rand_arg < args.size()) {
      char key[13];
      std::snprintf(key, sizeof key, "%012d", i % 1000);
      args[rand_arg].replace(rand_at, 12, key, 12);  // same length: no reallocation
    }
    if (redisAppendCommandArgv(c.get(), static_cast<int>(argv.size()), argv.data(),
                               lens.data()) != REDIS_OK) {
      fail("cannot format the command");
    }
    for (int written = 0; !written;) {
      if (redisBufferWrite(c.get(), &written) != REDIS_OK) fail("write failed");
    }
    void* reply = nullptr;
    while (reply == nullptr) {
      if (redisBufferRead(c.get()) != REDIS_OK ||
          redisGetReplyFromReader(c.get(), &reply) != REDIS_OK) {
        fail("read failed");
      }
      if (reply == nullptr && std::chrono::steady_clock::now() > deadline) {
        fail("no answer within a minute");
      }
    }
    const bool error = static_cast<redisReply*>(reply)->type == REDIS_REPLY_ERROR;
    freeReplyObject(reply);
    if (error) fail("an error reply");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string line = "(bench/peer.cc's hiredis client that polls, -r 1000)";
  for (const std::string& a : command) line += " " + a;
  commands_.push_back(line + " x " + std::to_string(requests));
  return requests / seconds;
}

std::string Peer::LoadScript(const std::string& body) {
  redisContext* c = redisConnect("127.0.0.1", port());
  if (c == nullptr || c->err) {
    if (c != nullptr) redisFree(c);
    throw HarnessError("cannot connect to the peer redis-server");
  }
  auto* r = static_cast<redisReply*>(redisCommand(c, "SCRIPT LOAD %b", body.data(), body.size()));
  std::string sha = r != nullptr && r->type == REDIS_REPLY_STRING ? std::string(r->str, r->len) : "";
  if (r != nullptr) freeReplyObject(r);
  redisFree(c);
  if (sha.empty()) throw HarnessError("SCRIPT LOAD failed on the peer");
  return sha;
}

}  // namespace locksim::bench
