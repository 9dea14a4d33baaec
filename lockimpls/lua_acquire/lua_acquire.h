// lua-acquire: seed 002's Lua acquire ("lua的一个获取锁的方法").
//
// Source: seed 002 §1.3, the closing variant: SETNX and PEXPIRE in one
// EVAL, so a client cannot die between them; released by the Lua
// compare-and-delete script. Up to try_num tries.
//
// The bug it carries: the document says it itself: "效果与相同当然弊端也一样"
// -- it is set-nx-px in a script, with set-nx-px's weaknesses: a paused
// holder outlives its lease (F1), a lease that ran out while the reply was
// on its way is not noticed (F10).
#ifndef LOCKSIM_LOCKIMPLS_LUA_ACQUIRE_LUA_ACQUIRE_H_
#define LOCKSIM_LOCKIMPLS_LUA_ACQUIRE_LUA_ACQUIRE_H_

#include <map>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

inline constexpr std::string_view kLuaAcquireScript =
    "if redis.call('setnx', KEYS[1], ARGV[1]) == 1 then\n"
    "    redis.call('pexpire', KEYS[1], ARGV[2])\n"
    "    return 1\n"
    "else\n"
    "    return 0\n"
    "end";

class LuaAcquireLock : public Lock {
 public:
  LuaAcquireLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 private:
  LockConfig config_;
  std::map<int, std::string> values_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_LUA_ACQUIRE_LUA_ACQUIRE_H_
