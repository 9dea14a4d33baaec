// AdapterProcess: one adapter child process owned by the harness, the OS
// side of a third-party lock client (docs/adapters.md).
//
// Its stdin and stdout are one end of a socket pair (the harness writes
// requests with MSG_NOSIGNAL, so an adapter that died is an error, never a
// SIGPIPE); its stderr goes to a file in a fresh temporary folder. It runs in
// its own process group (a Ctrl-C at the terminal reaches the harness, which
// stops it, not the adapter first), dies with the harness (PR_SET_PDEATHSIG),
// and is killed (SIGKILL) and reaped when the object is destroyed, on every
// path out. The folder is removed then too, unless a failure was reported
// (Keep()): its stderr is what the message points to; the next harness to
// start an adapter removes such folders once their owner is gone.
#ifndef LOCKSIM_SIM_REAL_ADAPTER_PROCESS_H_
#define LOCKSIM_SIM_REAL_ADAPTER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace locksim {

// The last `max` bytes of `text` ("..." before them when some were cut),
// as UTF-8 a JSON writer takes: a cut inside a character moves to its end,
// and bytes that are not UTF-8 (a library's own encoding) become U+FFFD.
std::string TextTail(const std::string& text, size_t max);

class AdapterProcess {
 public:
  // Starts argv (argv[0] an absolute path). Throws InputError when argv[0]
  // or `must_exist` (the adapter script) is missing, HarnessError when the
  // process cannot be started.
  // `env`: NAME=VALUE entries set in its environment, over the harness's.
  static std::unique_ptr<AdapterProcess> Start(const std::vector<std::string>& argv,
                                               const std::string& must_exist = {},
                                               const std::vector<std::string>& env = {});
  ~AdapterProcess();
  AdapterProcess(const AdapterProcess&) = delete;
  AdapterProcess& operator=(const AdapterProcess&) = delete;

  pid_t pid() const { return pid_; }
  int fd() const { return fd_; }  // readable when a reply (or EOF) is there
  std::string command() const;    // argv joined, for messages

  // Writes one line (a newline is added). False when the adapter is gone.
  bool Send(const std::string& line);
  // Reads what has arrived, without blocking; appends each complete line
  // to `lines`. False at end of file (the adapter closed its stdout or died).
  bool Receive(std::vector<std::string>* lines);
  // Blocks up to `timeout` for one complete line; nullopt on timeout or end
  // of file (then *eof is set).
  std::optional<std::string> ReadLine(Nanos timeout, bool* eof);

  // SIGSTOP / SIGCONT / SIGKILL (a paused, resumed, crashed client). Time
  // spent stopped is counted: the harness's bounds on an answer leave it out.
  void Signal(int signo);
  bool killed() const { return killed_; }
  Nanos StoppedFor() const;  // in total so far, including a stop under way

  // How it ended, when it has ("exited with status 1", "killed by SIGSEGV");
  // empty while it runs. Reaps it.
  std::string ExitStatus();
  // The last `max` bytes of its stderr (TextTail), and the file they come from.
  std::string StderrTail(size_t max = 800) const;
  std::string stderr_path() const { return dir_ + "/stderr.log"; }
  // Keep the folder (with stderr.log) after the object is gone.
  void Keep() { keep_ = true; }

  // Removes the folders of adapters whose harness died (each names its
  // owner's pid). Start() calls it.
  static void RemoveStaleFolders();

 private:
  AdapterProcess() = default;

  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string dir_;
  std::string buffer_;  // bytes read that do not yet end a line
  bool killed_ = false;
  bool reaped_ = false;
  int status_ = 0;
  bool keep_ = false;
  std::optional<std::chrono::steady_clock::time_point> stopped_since_;
  Nanos stopped_total_{0};
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_ADAPTER_PROCESS_H_
