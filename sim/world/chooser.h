// Chooser: the seam through which the virtual world makes the choices its
// scenario does not fix (issue 20). There are two kinds of choice point:
//   * a message leaves (a command, a reply; a replication stream's write
//     that a cut link held, when it heals): how long it takes to arrive.
//     The world draws a latency (and a lost segment's retransmissions) from
//     the seed's network stream, and the chooser may make it later.
//   * a tie: two or more events of one process fall due at the same
//     instant on different streams (requests from two clients' connections
//     reaching a node, replies from two nodes reaching a client): which of
//     them runs first. The default is FIFO order, as always.
// Events of different processes at one instant are not a choice: processes
// share nothing but messages, and a message takes at least the network's
// latency, so their order cannot change what either does. The replication
// lag is the scenario's, fixed: not a choice.
//
// With no chooser (random mode: every run whose scenario has no "choices",
// so all of compare's and explore's) the world draws from the seed and
// keeps FIFO order, exactly as before the seam existed. A ScriptedChooser (systematic mode: locksim verify, and a
// scenario file's "choices") numbers every choice point of the run from 1,
// records them, and deviates from the default at the points its script
// names: a message delivered later, or a tie broken in favour of another
// stream.
#ifndef LOCKSIM_SIM_WORLD_CHOOSER_H_
#define LOCKSIM_SIM_WORLD_CHOOSER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/scenario/choice.h"

namespace locksim {

class Chooser {
 public:
  virtual ~Chooser() = default;
  // Message `message` leaves at `now` with latency `drawn` (from the
  // seed): the latency it takes.
  virtual Nanos Latency(Nanos now, const std::string& message, Nanos drawn) = 0;
  // Streams `among` (two or more, FIFO order first) of one process each
  // have an event due at `now`: the index of the one that runs first.
  virtual size_t First(Nanos now, const std::vector<std::string>& among) = 0;
};

class ScriptedChooser final : public Chooser {
 public:
  // `script` ordered by point, as ParseScenario checks. With `record`, the
  // points met are kept (points()).
  ScriptedChooser(std::vector<ChoiceSpec> script, bool record)
      : script_(std::move(script)), record_(record) {}

  Nanos Latency(Nanos now, const std::string& message, Nanos drawn) override;
  size_t First(Nanos now, const std::vector<std::string>& among) override;

  const std::vector<ChoicePoint>& points() const { return points_; }
  // The script's entries the run did not apply, each saying why: as a
  // fault that never fired, the run did not test what the file says.
  std::vector<std::string> Unapplied() const;
  size_t unapplied() const { return unapplied_ + (script_.size() - next_); }

 private:
  // The script's entry for the point just met, if any.
  const ChoiceSpec* Next();
  void Miss(const ChoiceSpec& spec, const std::string& why);

  std::vector<ChoiceSpec> script_;
  bool record_;
  size_t next_ = 0;  // the script's first entry not yet reached
  int64_t count_ = 0;
  std::vector<ChoicePoint> points_;
  std::vector<std::string> missed_;
  size_t unapplied_ = 0;  // entries reached but not matching their point
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_CHOOSER_H_
