// The typed history (sim/core/history.h): values are recorded as data, read
// back as data, and made into text only by the formatting functions, which
// give exactly the text results.json has always had.
#include "sim/core/history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace locksim {
namespace {

using std::chrono::milliseconds;

TEST(HistoryTest, AnOpStaysSmall) {
  // 10^6 ops per history: the values live in side tables, not in the op.
  EXPECT_LE(sizeof(Op), 24u);
}

TEST(HistoryTest, OpsStayWhereTheyAreAcrossChunksAndReadBackInOrder) {
  // Several chunks' worth: a reference taken early still reads its op
  // (nothing moves when a chunk fills), and indexing, a range for and
  // iterator arithmetic agree across chunk boundaries.
  History h;
  const int a = h.AddActor("A");
  const size_t n = 3 * OpLog::kChunkSize + 5;
  const Op& first = h.AddStep(milliseconds(0), a, OpType::kInvoke, OpF::kAcquire, "lock");
  for (size_t i = 1; i < n; ++i) {
    const auto v = static_cast<int64_t>(i);
    h.AddNumber(milliseconds(v), a, OpType::kOk, OpF::kRead, v);
  }
  EXPECT_EQ(h.IndexOf(first), 0);
  EXPECT_EQ(first.f, OpF::kAcquire);
  EXPECT_EQ(h.key(first), "lock");
  ASSERT_EQ(h.ops().size(), n);
  size_t seen = 0;
  for (auto it = h.ops().begin(); it != h.ops().end(); ++it) {
    const Op& op = *it;
    ASSERT_EQ(it.index(), static_cast<int32_t>(seen));
    ASSERT_EQ(h.IndexOf(op), static_cast<int32_t>(seen));
    ASSERT_EQ(op.time, milliseconds(static_cast<int64_t>(seen)));
    ASSERT_EQ(&op, &h.ops()[seen]);
    ++seen;
  }
  EXPECT_EQ(seen, n);
  const OpLog& ops = h.ops();
  EXPECT_EQ(ops.end() - ops.begin(), static_cast<std::ptrdiff_t>(n));
  EXPECT_EQ((ops.begin() + OpLog::kChunkSize).index(), static_cast<int32_t>(OpLog::kChunkSize));
  EXPECT_EQ((ops.end() - 1).index(), static_cast<int32_t>(n - 1));
  EXPECT_EQ(h.IndexOf(ops.back()), static_cast<int32_t>(n - 1));
  auto at = std::lower_bound(ops.begin(), ops.end(), milliseconds(2000),
                             [](const Op& op, milliseconds t) { return op.time < t; });
  EXPECT_EQ(at.index(), 2000);
  // A copy is a copy, in the same order; the original is untouched.
  const History copy = h;
  ASSERT_EQ(copy.ops().size(), n);
  EXPECT_EQ(copy.ops()[n - 1].time, milliseconds(static_cast<int64_t>(n - 1)));
  EXPECT_NE(&copy.ops()[0], &h.ops()[0]);
  EXPECT_EQ(copy.number(copy.ops()[n - 1]), static_cast<int64_t>(n - 1));
}

TEST(HistoryTest, CommandsAndRepliesReadBackAsData) {
  History h;
  const int a = h.AddActor("A");
  const Op& sent = h.AddCommand(milliseconds(1), a, 2, {"SET", "lock:x", "tok en", "NX"});
  const int64_t at = h.IndexOf(sent);
  h.AddReply(milliseconds(2), a, OpType::kOk, 2, Reply::Ok());
  // More commands after it do not move what the first one reads.
  // (Each a new one: a repeated command is not stored again.)
  for (int i = 0; i < 1000; ++i) {
    h.AddCommand(milliseconds(3), a, 0, {"GET", std::string(50, 'k') + std::to_string(i)});
  }
  const Op& op = h.ops()[at];
  EXPECT_EQ(op.f, OpF::kRedis);
  EXPECT_EQ(op.type, OpType::kInvoke);
  EXPECT_EQ(op.node, 2);
  const CommandView cmd = h.command(op);
  ASSERT_EQ(cmd.size(), 4u);
  EXPECT_EQ(cmd.name(), "SET");
  EXPECT_EQ(cmd[2], "tok en");
  EXPECT_EQ(cmd.ToCommand(), (Command{"SET", "lock:x", "tok en", "NX"}));
  EXPECT_EQ(h.ValueText(op), "SET lock:x \"tok en\" NX");
  EXPECT_EQ(h.reply(h.ops()[at + 1]), Reply::Ok());
  EXPECT_EQ(h.ValueText(h.ops()[at + 1]), "OK");
}

// A client that retries sends the same command again; the history keeps
// its bytes once, and every op still reads back what was sent then.
TEST(HistoryTest, RepeatedCommandsReadBackAsSentWhoeverSentThem) {
  History h;
  const int a = h.AddActor("A");
  const int b = h.AddActor("B");
  const Command set = {"SET", "lock:x", "tok-a", "NX", "PX", "5000"};
  const std::vector<std::pair<int, Command>> sent = {
      {a, set},
      {a, set},
      {b, {"SET", "lock:x", "tok-b", "NX", "PX", "5000"}},
      {a, set},
      {b, set},                                          // A's command, sent by B
      {a, {"SET", "lock:x", "tok-a", "NX", "PX"}},       // one argument fewer
      {a, {"SET", "lock:x", "tok-a", "NX", "PX", "500"}},
      {a, {"SET", "lock:x", "tok-a", "NX", "PX", "5000", ""}},  // one more, empty
      {a, {"SET", "lock:x", "tok-", "aNX", "PX", "5000"}},  // the same bytes, cut elsewhere
      {a, set},
  };
  for (const auto& [actor, cmd] : sent) h.AddCommand(milliseconds(1), actor, 0, cmd);
  ASSERT_EQ(h.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(h.ops()[i].actor, sent[i].first);
    EXPECT_EQ(h.command(h.ops()[i]).ToCommand(), sent[i].second);
  }
}

// And so do shared commands (a lock's retry loop), mixed with copies: the
// same shared command, sent again after others, by its actor or another,
// reads back as itself; another shared command with the same bytes too.
TEST(HistoryTest, SharedCommandsReadBackAsSentAmongOthers) {
  History h;
  const int a = h.AddActor("A");
  const int b = h.AddActor("B");
  const SharedCommand set = Share({"SET", "lock:x", "tok-a", "NX", "PX", "5000"});
  const SharedCommand twin = Share(*set);
  const Command eval = {"EVAL", "return 1", "0"};
  std::vector<std::pair<int, Command>> sent;
  auto shared = [&](int actor, const SharedCommand& cmd) {
    h.AddCommand(milliseconds(1), actor, 0, cmd);
    sent.emplace_back(actor, *cmd);
  };
  auto copied = [&](int actor, const Command& cmd) {
    h.AddCommand(milliseconds(1), actor, 0, cmd);
    sent.emplace_back(actor, cmd);
  };
  shared(a, set);
  shared(a, set);
  copied(a, eval);
  shared(a, set);
  shared(b, set);
  copied(a, *set);
  shared(a, twin);
  copied(b, eval);
  shared(b, set);
  shared(a, set);
  ASSERT_EQ(h.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(h.ops()[i].actor, sent[i].first);
    EXPECT_EQ(h.command(h.ops()[i]).ToCommand(), sent[i].second);
  }
  // A's repeats are one stored copy of the bytes.
  EXPECT_EQ(h.ops()[0].slot, h.ops()[1].slot);
  EXPECT_EQ(h.ops()[0].slot, h.ops()[3].slot);
}

// So are replies: a retry's nil, again and again.
TEST(HistoryTest, RepeatedRepliesReadBackAsReceivedWhoeverReceivedThem) {
  History h;
  const int a = h.AddActor("A");
  const int b = h.AddActor("B");
  Reply array = Reply::Array({});
  array.elements.push_back(Reply::Integer(1));
  Reply longer = array;
  longer.elements.push_back(Reply::Nil());
  const std::vector<std::pair<int, Reply>> got = {
      {a, Reply::Nil()},       {a, Reply::Nil()},  {b, Reply::Ok()},   {a, Reply::Nil()},
      {b, Reply::Nil()},       {a, Reply::Ok()},   {a, Reply::Integer(1)}, {a, Reply::Integer(0)},
      {a, Reply::String("1")}, {a, array},         {a, longer},        {a, array},
      {a, Reply::Error("ERR x")}, {a, Reply::Nil()},
  };
  for (const auto& [actor, reply] : got) h.AddReply(milliseconds(1), actor, OpType::kOk, 0, reply);
  ASSERT_EQ(h.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(h.ops()[i].actor, got[i].first);
    EXPECT_EQ(h.reply(h.ops()[i]), got[i].second);
  }
}

TEST(HistoryTest, CommandNamesCompareInAnyCase) {
  EXPECT_TRUE(CommandNameIs("exec", "EXEC"));
  EXPECT_TRUE(CommandNameIs("ExEc", "exec"));
  EXPECT_FALSE(CommandNameIs("EXECX", "EXEC"));
  EXPECT_FALSE(CommandNameIs("", "EXEC"));
}

TEST(HistoryTest, LockStepsCarryTheirKeyAndWhetherNested) {
  History h;
  const int a = h.AddActor("A");
  const Op& outer = h.AddStep(milliseconds(1), a, OpType::kInvoke, OpF::kAcquire, "lock:x");
  EXPECT_FALSE(outer.nested);
  EXPECT_EQ(h.ValueText(outer), "lock:x");
  const Op& inner =
      h.AddStep(milliseconds(2), a, OpType::kOk, OpF::kAcquire, "lock:x", /*nested=*/true);
  EXPECT_TRUE(inner.nested);
  EXPECT_EQ(h.key(inner), "lock:x");
  EXPECT_EQ(h.ValueText(inner), "lock:x (nested)");
  EXPECT_EQ(h.ValueText(h.Add(milliseconds(3), a, OpType::kOk, OpF::kRelease)), "");
}

TEST(HistoryTest, StepsOnSeveralKeysKeepEachItsOwn) {
  // A step's key is compared with the last step's first: alternating keys,
  // a key seen before, and a history moved to and then moved from (its
  // keys gone with it) each read back as recorded.
  History h;
  const int a = h.AddActor("A");
  const std::vector<std::string> keys = {"lock:a", "lock:b", "lock:b",
                                         "lock:a", "lock:c", "lock:a"};
  std::vector<int32_t> at;
  for (const std::string& k : keys) {
    at.push_back(h.IndexOf(h.AddStep(milliseconds(1), a, OpType::kInvoke, OpF::kAcquire, k)));
  }
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(h.key(h.ops()[at[i]]), keys[i]) << i;
  History moved = std::move(h);
  EXPECT_EQ(moved.key(moved.ops()[at[5]]), "lock:a");
  History again;
  again.AddActor("A");
  again = std::move(moved);
  const Op& next = again.AddStep(milliseconds(2), a, OpType::kOk, OpF::kAcquire, "lock:a");
  EXPECT_EQ(again.key(next), "lock:a");
  History empty;
  empty.AddActor("A");
  empty = std::move(moved);  // moved-from: no keys, whatever its last one was
  const Op& fresh = empty.AddStep(milliseconds(3), a, OpType::kOk, OpF::kAcquire, "lock:z");
  EXPECT_EQ(empty.key(fresh), "lock:z");
}

TEST(HistoryTest, NumbersAndFencingTokens) {
  History h;
  const int a = h.AddActor("A");
  const Op& read = h.AddNumber(milliseconds(1), a, OpType::kOk, OpF::kRead, 7);
  EXPECT_EQ(h.number(read), 7);
  EXPECT_EQ(h.token(read), std::nullopt);
  EXPECT_EQ(h.ValueText(read), "7");
  const Op& write = h.AddNumber(milliseconds(2), a, OpType::kFail, OpF::kWrite, 8, 3);
  EXPECT_EQ(h.token(write), 3);
  EXPECT_EQ(h.ValueText(write), "8 (token 3)");
}

TEST(HistoryTest, KeyStatesAreFormattedAsTheNodesShowThem) {
  KeyState s{"lock:x", true, false, "tok", {}, 4999};
  EXPECT_EQ(FormatKeyState(s), "lock:x = \"tok\" pttl 4999");
  s.pttl_ms.reset();
  EXPECT_EQ(FormatKeyState(s), "lock:x = \"tok\" no ttl");
  s.str = std::string(41, 'v');
  EXPECT_EQ(FormatKeyState(s), "lock:x = \"" + std::string(37, 'v') + "...\" no ttl");
  KeyState hash{"lock:x", true, true, "", {{"uuid:1", "2"}, {"uuid:2", "1"}}, 30000};
  EXPECT_EQ(FormatKeyState(hash), "lock:x = {uuid:1: 2, uuid:2: 1} pttl 30000");
  EXPECT_EQ(FormatKeyState(KeyState::Absent("lock:x")), "lock:x absent");
  // Only the value counts as a change of value, not the TTL.
  KeyState later = hash;
  later.pttl_ms = 29000;
  EXPECT_TRUE(later.SameValue(hash));
  later.fields[0].second = "3";
  EXPECT_FALSE(later.SameValue(hash));
}

TEST(HistoryTest, StatesFaultsAndChecksRecordWhoAndWhat) {
  History h;
  const int a = h.AddActor("A");
  const int node = h.AddActor("redis0");
  const Op& st = h.AddState(milliseconds(1), node, OpType::kOk, KeyState::Absent("lock:x"), a);
  EXPECT_EQ(st.f, OpF::kState);
  EXPECT_EQ(st.subject, a);
  EXPECT_FALSE(h.state(st).present);
  const Op& fault = h.AddFault(milliseconds(2), OpF::kPause, "A for 4s", a);
  EXPECT_EQ(fault.actor, h.nemesis());
  EXPECT_EQ(fault.type, OpType::kInfo);
  EXPECT_EQ(h.ValueText(fault), "A for 4s");
  const ReplyCheck check{{"INCR", "n"}, Reply::Error("ERR x"), "(integer) 1"};
  EXPECT_EQ(h.ValueText(h.AddReplyCheck(milliseconds(3), a, OpType::kFail, check)),
            "reply to INCR n was (error) ERR x, Redis gives (integer) 1");
  EXPECT_EQ(h.ValueText(h.AddReplyCheck(milliseconds(4), a, OpType::kOk, check)), "(error) ERR x");
  const Op& request = h.AddAdapterMessage(milliseconds(5), a, OpType::kInvoke, R"({"id":1})");
  EXPECT_EQ(request.f, OpF::kAdapter);
  EXPECT_EQ(OpFName(request.f), "adapter");
  EXPECT_EQ(h.text(request), R"({"id":1})");
}

TEST(HistoryTest, LockOpsAreEveryOpButCommandsRepliesAndAdapterMessages) {
  // The checks read lock_ops(): in history order, across chunks, exactly
  // the ops that are not a Redis command or reply or an adapter message.
  History h;
  const int a = h.AddActor("A");
  const int node = h.AddActor("redis0");
  std::vector<int32_t> expected;
  for (int i = 0; i < 3 * static_cast<int>(OpLog::kChunkSize); ++i) {
    const milliseconds t(i);
    switch (i % 7) {
      case 0:
        expected.push_back(h.IndexOf(h.AddStep(t, a, OpType::kInvoke, OpF::kAcquire, "l")));
        break;
      case 1: h.AddCommand(t, a, 0, {"SET", "l", "v", "NX"}); break;
      case 2: h.AddReply(t, a, OpType::kOk, 0, Reply::Nil()); break;
      case 3: expected.push_back(h.IndexOf(h.AddFault(t, OpF::kPause, "A", a))); break;
      case 4: h.AddAdapterMessage(t, a, OpType::kInvoke, "{}"); break;
      case 5:
        expected.push_back(h.IndexOf(h.AddState(t, node, OpType::kOk, KeyState::Absent("l"))));
        break;
      default: expected.push_back(h.IndexOf(h.AddNumber(t, a, OpType::kOk, OpF::kWrite, i))); break;
    }
  }
  std::vector<int32_t> seen;
  for (auto it = h.lock_ops().begin(); it != h.lock_ops().end(); ++it) seen.push_back(it.index());
  EXPECT_EQ(seen, expected);
  ASSERT_EQ(h.lock_ops().size(), expected.size());
  EXPECT_EQ(h.IndexOf(h.lock_ops()[expected.size() - 1]), expected.back());
  // Commands sent: the redis invokes, 3 * 1024 / 7 of them rounded up.
  EXPECT_EQ(h.commands_sent(), (3 * static_cast<int64_t>(OpLog::kChunkSize) + 5) / 7);
  EXPECT_TRUE(h.SentCommandNamed("set"));
  EXPECT_FALSE(h.SentCommandNamed("EXEC"));
  h.AddCommand(milliseconds(9999), a, 0, {"exec"});
  EXPECT_TRUE(h.SentCommandNamed("EXEC"));
  // A copy keeps them.
  const History copy = h;
  EXPECT_EQ(copy.lock_ops().size(), expected.size());
  EXPECT_EQ(&copy.lock_ops()[0], &copy.ops()[0]);
}

TEST(HistoryDeathTest, ReadingTheWrongKindOfValueAborts) {
  History h;
  const Op& op = h.AddNumber(milliseconds(1), h.AddActor("A"), OpType::kOk, OpF::kRead, 1);
  EXPECT_DEATH(h.command(op), "read as the wrong kind of value");
}

}  // namespace
}  // namespace locksim
