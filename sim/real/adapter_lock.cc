#include "sim/real/adapter_lock.h"

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "sim/core/errors.h"
#include "sim/core/resources.h"
#include "sim/real/adapter_protocol.h"

namespace locksim {
namespace {

int64_t ToMs(Nanos d) { return duration_cast<std::chrono::milliseconds>(d).count(); }

}  // namespace

std::string AdapterUnsupported(const AlgorithmInfo& algo, const Scenario& scenario,
                               bool real_backend) {
  const std::string library(algo.adapter->library);
  if (!real_backend) {
    return std::string(algo.id) + " drives " + library +
           " in a process of its own, which talks to a real redis-server: needs --backend real";
  }
  for (size_t i = 0; i < scenario.clients.size(); ++i) {
    if (scenario.clients[i].threads != 1) {
      return scenario.file + ": $.clients[" + std::to_string(i) + "].threads: " +
             std::string(algo.id) + " (an adapter-driven client) runs one thread per client";
    }
  }
  return "";
}

AdapterLock::AdapterLock(World& world, AdapterHost& host, int process, std::string client,
                         const AdapterProgram& program, const LockConfig& config,
                         const std::string& program_override)
    : world_(world),
      host_(host),
      process_(process),
      incarnation_(world.Incarnation(process)),
      client_(std::move(client)),
      library_(program.library),
      config_(config) {
  std::vector<std::string> argv = program.argv;
  std::string script = program.script;
  if (!program_override.empty()) {
    argv = {program_override};
    script.clear();
  }
  std::vector<std::string> env;
  if (program.node_modules) {
    const std::string modules = NodeModulesPath();
    if (program_override.empty() && !std::filesystem::is_directory(modules)) {
      throw InputError("the " + library_ + " adapter needs its Node.js modules in " + modules +
                       ", which is missing: " + program.install);
    }
    env.push_back("NODE_PATH=" + modules);
  }
  try {
    adapter_ = AdapterProcess::Start(argv, script, env);
  } catch (const InputError& e) {
    if (!program_override.empty()) throw InputError(std::string("--adapter: ") + e.what());
    throw InputError(std::string(e.what()) + ": the " + library_ + " adapter" +
                     (program.manifest.empty() ? "" : " (" + program.manifest + ")") +
                     " needs it (" + program.install + ")");
  }
  nlohmann::ordered_json hello;
  hello["op"] = "hello";
  hello["client"] = client_;
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (int n = 0; n < world_.NodeCount(); ++n) {
    const AdapterHost::Address a = host_.NodeAddress(process_, n);
    nodes.push_back({{"host", a.host}, {"port", a.port}});
  }
  hello["nodes"] = nodes;
  hello["key"] = config_.key;
  hello["ttl_ms"] = ToMs(config_.ttl);
  hello["acquire_timeout_ms"] = ToMs(config_.acquire_timeout);
  hello["retry_delay_ms"] = ToMs(config_.retry_delay);
  expected_.push_back(Expected{0, "hello"});
  if (!adapter_->Send(hello.dump())) {
    adapter_->Keep();
    throw HarnessError(Describe("could not be sent hello (" + adapter_->ExitStatus() + ")"));
  }
  host_.WatchFd(adapter_->fd(), [this] { OnReadable(); });
  // Started during the run (a restarted client): the hello must be
  // answered in time too.
  ArmBound(0, "hello", kHelloTimeout, adapter_->StoppedFor());
}

AdapterLock::~AdapterLock() {
  if (dead_ || adapter_ == nullptr) return;
  // A polite end: bye, and a moment to exit; the process object kills it
  // if it has not.
  adapter_->Signal(SIGCONT);
  if (adapter_->Send(R"({"op":"bye"})")) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    bool eof = false;
    while (!eof && std::chrono::steady_clock::now() < deadline) {
      adapter_->ReadLine(std::chrono::milliseconds(100), &eof);
    }
  }
}

std::string AdapterLock::Describe(const std::string& what) {
  adapter_->Keep();  // the message points to its stderr
  std::string s = "the " + library_ + " adapter of client " + client_ + " (" +
                  adapter_->command() + ", pid " + std::to_string(adapter_->pid()) + ") " + what;
  const std::string tail = adapter_->StderrTail();
  s += "; its stderr (" + adapter_->stderr_path() + ")";
  s += tail.empty() ? " is empty" : ":\n" + tail;
  return s;
}

void AdapterLock::DieSoon(const std::string& what) {
  world_.At(world_.Now(), world_.nemesis(), [this, what] { Die(what); });
}

void AdapterLock::Die(const std::string& what) {
  if (dead_) return;
  dead_ = true;
  host_.UnwatchFd(adapter_->fd());
  adapter_->Signal(SIGKILL);
  Failure f;
  f.time = world_.Now();
  f.what = what;
  f.stderr_tail = adapter_->StderrTail();
  failure_ = f;
  // The client crashed: its threads never resume, and the history says so
  // as it says a crash the nemesis made.
  world_.history().AddFault(world_.Now(), OpF::kCrash,
                            client_ + " (its " + library_ + " adapter " + f.what + ")",
                            world_.MainActor(process_));
  world_.Crash(process_);
}

std::string AdapterLock::NoteError(const std::string& op, const nlohmann::json& reply) {
  if (!reply.contains("error") || reply["error"].is_null()) return "";
  const std::string text =
      reply["error"].is_string() ? reply["error"].get<std::string>() : reply["error"].dump();
  errors_.push_back(Error{op, text, world_.Now()});
  return text;
}

std::string AdapterLock::TakeError(const Env& thread) {
  (void)thread;  // one thread per adapter-driven client
  return std::exchange(last_error_, std::string());
}

void AdapterLock::AwaitHello() {
  if (expected_.empty() || expected_.front().id != 0) return;
  bool eof = false;
  std::optional<std::string> line = adapter_->ReadLine(kHelloTimeout, &eof);
  if (!line) {
    host_.UnwatchFd(adapter_->fd());
    throw HarnessError(Describe(eof ? "exited before answering hello (" +
                                          adapter_->ExitStatus() + ")"
                                    : "did not answer hello within " +
                                          FormatDuration(kHelloTimeout)));
  }
  nlohmann::json reply = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
  if (!reply.is_object()) {
    throw HarnessError(Describe("answered hello with a line that is not a JSON object: " +
                                QuoteLine(*line)));
  }
  if (reply.value("ok", false) != true && reply.contains("error")) {
    // The adapter runs but cannot do its job here: its library is missing
    // or too old. Like a missing redis-server, that is the user's to fix.
    adapter_->Keep();
    throw InputError("the " + library_ + " adapter of client " + client_ +
                     " cannot start: " + reply["error"].dump());
  }
  if (std::string why = CheckHello(reply); !why.empty()) throw HarnessError(Describe(why));
  expected_.pop_front();
}

std::string AdapterLock::CheckHello(const nlohmann::json& reply) {
  if (std::string why = CheckHelloReply(reply); !why.empty()) return why;
  if (reply.contains("library") && reply["library"].is_string()) {
    library_ = reply["library"].get<std::string>();
  }
  return "";
}

void AdapterLock::OnReadable() {
  std::vector<std::string> lines;
  const bool open = adapter_->Receive(&lines);
  for (const std::string& line : lines) HandleLine(line);
  if (!open) {
    const std::string status = adapter_->ExitStatus();
    const std::string what = (status.empty() ? std::string("closed its stdout") : status) +
                             (expected_.empty() ? "" : " while serving " + expected_.front().op);
    if (!expected_.empty() && expected_.front().id == 0) {
      // Before the run, or a restarted client's start: not the library at work.
      throw HarnessError(Describe(what));
    }
    // From an event, so that a reply read just before the end of its output
    // reaches the client first (HandleLine scheduled it at this instant).
    host_.UnwatchFd(adapter_->fd());
    DieSoon(what);
  }
}

void AdapterLock::HandleLine(const std::string& line) {
  nlohmann::json reply;
  const DueRequest* due = nullptr;
  DueRequest front{0, ""};
  if (!expected_.empty()) {
    front = DueRequest{expected_.front().id, expected_.front().op};
    due = &front;
  }
  if (std::string why = CheckAdapterLine(line, due, &reply); !why.empty()) {
    throw HarnessError(Describe(why));
  }
  const Expected x = expected_.front();
  if (x.id == 0) {
    CheckHello(reply);  // passed above; takes the library's name
    expected_.pop_front();
    return;
  }
  expected_.pop_front();
  // The reply reaches the client when its process runs: after a pause.
  world_.At(
      world_.Now(), process_,
      [this, id = x.id, reply = std::move(reply)] {
        replies_[id] = reply;
        replied_.NotifyAll();
      },
      incarnation_);
}

void AdapterLock::ArmBound(int64_t id, const std::string& what, Nanos bound,
                           Nanos stopped_before) {
  world_.At(world_.Now() + bound, world_.nemesis(), [this, id, what, bound, stopped_before] {
    if (dead_) return;
    const bool waiting = std::any_of(expected_.begin(), expected_.end(),
                                     [id](const Expected& x) { return x.id == id; });
    if (!waiting) return;
    // Time the adapter spent stopped (a pause) does not count.
    const Nanos stopped = adapter_->StoppedFor() - stopped_before;
    if (stopped > Nanos{0}) {
      ArmBound(id, what, stopped, adapter_->StoppedFor());
      return;
    }
    const std::string why = "did not answer " + what + " within " + FormatDuration(bound) +
                            " (time stopped by a pause not counted)";
    if (id == 0) throw HarnessError(Describe(why));
    // A library blocked on a Redis node that does not answer (no socket
    // timeout) hangs its client: that is what the library does.
    Die(why + ": killed");
  });
}

Task<nlohmann::json> AdapterLock::Request(Env& env, nlohmann::json request, Nanos bound) {
  const int64_t id = next_id_++;
  const std::string op = request.value("op", "");
  request["id"] = id;
  const std::string line = request.dump();
  History& h = world_.history();
  const int actor = world_.MainActor(process_);
  h.AddAdapterMessage(world_.Now(), actor, OpType::kInvoke, line);
  expected_.push_back(Expected{id, op});
  if (!adapter_->Send(line)) {
    DieSoon("could not be sent " + QuoteLine(line) + " (" + adapter_->ExitStatus() + ")");
  } else {
    // Queued behind an unanswered hello (a restarted client): its start counts too.
    const bool after_hello = !expected_.empty() && expected_.front().id == 0;
    ArmBound(id, "request " + QuoteLine(line),
             bound + kReplyMargin + (after_hello ? kHelloTimeout : Nanos{0}),
             adapter_->StoppedFor());
  }
  // The bound above ends the run if no reply comes; this wait only needs
  // to outlast it.
  while (!replies_.contains(id)) {
    co_await env.WaitFor(replied_, std::chrono::hours(24));
  }
  nlohmann::json reply = std::move(replies_[id]);
  replies_.erase(id);
  h.AddAdapterMessage(world_.Now(), actor, OpType::kOk, reply.dump());
  co_return reply;
}

Task<bool> AdapterLock::Acquire(Env& env) {
  nlohmann::json request;
  request["op"] = "acquire";
  const nlohmann::json reply = co_await Request(env, std::move(request), config_.acquire_timeout);
  last_error_ = NoteError("acquire", reply);
  co_return reply["acquired"].get<bool>();
}

Task<bool> AdapterLock::Release(Env& env) {
  nlohmann::json request;
  request["op"] = "release";
  const nlohmann::json reply = co_await Request(env, std::move(request), Nanos(0));
  last_error_ = NoteError("release", reply);
  co_return reply["released"].get<bool>();
}

void AdapterLock::Signal(int signo) {
  if (dead_) return;
  if (signo == SIGKILL) {
    dead_ = true;
    host_.UnwatchFd(adapter_->fd());
  }
  adapter_->Signal(signo);
}

}  // namespace locksim
