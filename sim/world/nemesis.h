// The nemesis: carries out a scenario's faults (Jepsen's name for it) on
// either world, at a time or when a client reaches an event of the
// history ("right after A's SETNX reply"), and records each one in the
// history under the process "nemesis". A trigger that never fires is
// reported by Unfired(), never ignored.
#ifndef LOCKSIM_SIM_WORLD_NEMESIS_H_
#define LOCKSIM_SIM_WORLD_NEMESIS_H_

#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "sim/world/world.h"

namespace locksim {

class Nemesis {
 public:
  struct Hooks {
    // A client's or a Redis node's runtime process; -1 if unknown.
    std::function<int(const std::string&)> process_of;
    // Starts a restarted client process again (a new incarnation).
    std::function<void(const std::string& client)> restart_client;
    // A client process that is an OS process of its own (an adapter-driven
    // client) gets the signal a fault means: SIGSTOP when a pause starts,
    // SIGCONT when it ends, SIGKILL at a crash. May be empty.
    std::function<void(int process, int signo)> signal_process;
    std::string lock_key;           // the default key of `expire`
  };

  // Faults that `world` cannot carry out are refused before a run starts
  // (InputError naming the fault's JSON path); `file` names the scenario.
  // `nodes` are the Redis node names (Scenario::NodeNames()).
  static void CheckSupported(const std::vector<FaultSpec>& faults, bool virtual_world,
                             const std::vector<std::string>& nodes, const std::string& file);

  Nemesis(World& world, std::vector<FaultSpec> faults, Hooks hooks);
  // Schedules the timed faults and starts watching the history for the
  // triggered ones.
  void Start();
  // The faults whose trigger never fired, by JSON path, with the reason.
  std::vector<std::string> Unfired() const;

 private:
  void OnOp(int64_t index);
  void Fire(size_t i);
  // One function per fault type (FaultSpec::Type), each recording the
  // fault and carrying it out.
  void Pause(const FaultSpec& f);
  void Crash(const FaultSpec& f);
  void Restart(const std::string& name);
  void Failover(const FaultSpec& f);
  void Clock(const FaultSpec& f);
  void Expire(const FaultSpec& f);
  void Partition(const FaultSpec& f);
  void HealAll();
  void Degrade(const FaultSpec& f);  // delay, drop
  // "A,B | redis0": the links of a partition, delay or drop.
  static std::string LinksText(const FaultSpec& f);
  // Calls each(a, b) for the processes of every link from f.from to f.to.
  void ForLinks(const FaultSpec& f, const std::function<void(int, int)>& each) const;
  void Record(OpF f, const std::string& value, int subject_process = -1);
  int NodeOf(const std::string& name) const;  // physical node, -1 if a client
  void SignalProcess(int process, int signo);

  World& rt_;
  std::vector<FaultSpec> faults_;
  Hooks hooks_;
  std::vector<bool> fired_;
  std::vector<int64_t> seen_;          // matching events so far, per fault
  // Per fault: the main actor whose events its trigger counts, resolved
  // once the processes are there (Start); -1 for a timed fault or a name
  // that is no process. OnOp runs for every op: no lookup by name there.
  std::vector<int> watched_;
  std::vector<std::string> last_sent_;  // per actor: the last command's name, as sent
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_NEMESIS_H_
