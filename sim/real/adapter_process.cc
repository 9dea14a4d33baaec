#include "sim/real/adapter_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/core/interrupt.h"

namespace locksim {
namespace {

constexpr char kFolderPrefix[] = "locksim-adapter-";

}  // namespace

void AdapterProcess::RemoveStaleFolders() {
  std::error_code ec;
  const auto tmp = std::filesystem::temp_directory_path(ec);
  if (ec) return;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kFolderPrefix, 0) != 0 || !entry.is_directory(ec)) continue;
    std::ifstream in(entry.path() / "owner.pid");
    long pid = 0;
    if (!(in >> pid) || pid <= 0) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // owner alive
    std::filesystem::remove_all(entry.path(), ec);
  }
}

std::unique_ptr<AdapterProcess> AdapterProcess::Start(const std::vector<std::string>& argv,
                                                      const std::string& must_exist,
                                                      const std::vector<std::string>& env) {
  if (argv.empty() || access(argv[0].c_str(), X_OK) != 0) {
    throw InputError("\"" + (argv.empty() ? std::string() : argv[0]) +
                     "\" not found or not executable");
  }
  if (!must_exist.empty() && access(must_exist.c_str(), R_OK) != 0) {
    throw InputError("\"" + must_exist + "\" not found");
  }
  RemoveStaleFolders();
  std::unique_ptr<AdapterProcess> a(new AdapterProcess());
  a->argv_ = argv;
  std::string tmpl =
      (std::filesystem::temp_directory_path() / (std::string(kFolderPrefix) + "XXXXXX")).string();
  if (mkdtemp(tmpl.data()) == nullptr) throw HarnessError("mkdtemp(" + tmpl + ") failed");
  a->dir_ = tmpl;
  std::ofstream(a->dir_ + "/owner.pid") << getpid() << "\n";

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw HarnessError(std::string("socketpair() for the adapter failed: ") + strerror(errno));
  }
  const int err = open(a->stderr_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (std::string& s : args) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  // The environment, built before fork(): the child only execs.
  std::vector<std::string> vars = env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view var(*e);
    const std::string_view name = var.substr(0, var.find('='));
    const bool overridden = std::any_of(env.begin(), env.end(), [&](const std::string& v) {
      return std::string_view(v).substr(0, v.find('=')) == name;
    });
    if (!overridden) vars.emplace_back(var);
  }
  std::vector<char*> cenv;
  for (std::string& v : vars) cenv.push_back(v.data());
  cenv.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    if (err >= 0) close(err);
    throw HarnessError("fork() for the adapter failed");
  }
  if (pid == 0) {
    // As redis-server's start (redis_server.cc): dies with the harness,
    // nothing blocked, no descriptor of the harness leaks in.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    setpgid(0, 0);
    InterruptGuard::ResetInChild();
    dup2(sv[1], 0);
    dup2(sv[1], 1);
    if (err >= 0) dup2(err, 2);
    close_range(3, ~0U, 0);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(sv[1]);
  if (err >= 0) close(err);
  a->pid_ = pid;
  a->fd_ = sv[0];
  return a;
}

AdapterProcess::~AdapterProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
  }
  if (fd_ >= 0) close(fd_);
  if (!dir_.empty() && !keep_) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

std::string AdapterProcess::command() const {
  std::string s;
  for (const std::string& a : argv_) s += (s.empty() ? "" : " ") + a;
  return s;
}

bool AdapterProcess::Send(const std::string& line) {
  const std::string out = line + "\n";
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = send(fd_, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool AdapterProcess::Receive(std::vector<std::string>* lines) {
  char buf[4096];
  bool open = true;
  for (;;) {
    const ssize_t n = recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      buffer_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) open = false;
    break;
  }
  for (size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
    lines->push_back(buffer_.substr(0, nl));
    buffer_.erase(0, nl + 1);
  }
  return open;
}

std::optional<std::string> AdapterProcess::ReadLine(Nanos timeout, bool* eof) {
  *eof = false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<std::string> lines;
  for (;;) {
    const bool open = Receive(&lines);
    if (!lines.empty()) {
      // Put back what came after the first line: the caller reads it later.
      for (size_t i = lines.size(); i-- > 1;) buffer_.insert(0, lines[i] + "\n");
      return lines.front();
    }
    if (!open) {
      *eof = true;
      return std::nullopt;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    pollfd p{fd_, POLLIN, 0};
    InterruptGuard::Poll(&p, 1, duration_cast<Nanos>(deadline - now));
  }
}

void AdapterProcess::Signal(int signo) {
  if (pid_ <= 0 || killed_ || reaped_) return;
  if (signo == SIGSTOP && !stopped_since_) stopped_since_ = std::chrono::steady_clock::now();
  if ((signo == SIGCONT || signo == SIGKILL) && stopped_since_) {
    stopped_total_ += duration_cast<Nanos>(std::chrono::steady_clock::now() - *stopped_since_);
    stopped_since_.reset();
  }
  kill(pid_, signo);
  if (signo == SIGKILL) {
    killed_ = true;
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
}

Nanos AdapterProcess::StoppedFor() const {
  Nanos total = stopped_total_;
  if (stopped_since_) {
    total += duration_cast<Nanos>(std::chrono::steady_clock::now() - *stopped_since_);
  }
  return total;
}

std::string AdapterProcess::ExitStatus() {
  if (!reaped_) {
    // The other end may close a moment before the process is gone.
    for (int i = 0; i < 100 && !reaped_; ++i) {
      if (waitpid(pid_, &status_, WNOHANG) == pid_) {
        reaped_ = true;
      } else {
        usleep(2000);
      }
    }
    if (!reaped_) return "";
  }
  if (WIFEXITED(status_)) return "exited with status " + std::to_string(WEXITSTATUS(status_));
  if (WIFSIGNALED(status_)) {
    const char* name = sigabbrev_np(WTERMSIG(status_));
    return std::string("killed by SIG") + (name ? name : "?");
  }
  return "ended";
}

std::string TextTail(const std::string& text, size_t max) {
  size_t from = text.size() > max ? text.size() - max : 0;
  // A cut inside a character: from the next one.
  while (from > 0 && from < text.size() &&
         (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) {
    ++from;
  }
  // What is not UTF-8 replaced (U+FFFD) by the JSON writer's own check, the
  // one that would otherwise refuse it when the tail is written out.
  const std::string quoted = nlohmann::json(text.substr(from))
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return (from > 0 ? "..." : "") + nlohmann::json::parse(quoted).get<std::string>();
}

std::string AdapterProcess::StderrTail(size_t max) const {
  std::ifstream in(stderr_path());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return TextTail(s, max);
}

}  // namespace locksim
