// croq/cpu/event.h: mbarriers, `shared event`s and named barriers for
// `--target=cpu` (the CPU counterparts of croq/device/mbarrier.h,
// croq/device/event.h and the named barriers of croq/device/fence.h).
//
// An mbarrier is the same 8 bytes of shared memory as on the GPU, holding
// the arrival count per phase (bits 0-29), the arrivals still missing in the
// current phase (bits 30-59) and the parity of the current phase (bit 63).
// Blocks run one at a time per core and their threads are fibers, so plain
// reads and writes are atomic enough. A thread waiting for a phase that never
// completes is reported as a deadlock naming the event (croq/cpu/launch.h).
// Copies that stand for TMA run when issued, so transaction counts are
// always zero here.
#pragma once

#include <cstdint>

#include "croq/cpu/launch.h"

namespace croq {

namespace cpu::detail {

inline constexpr std::uint64_t kCountMask = (1ull << 30) - 1;

inline std::uint64_t mbar_count(std::uint64_t v) { return v & kCountMask; }
inline std::uint64_t mbar_pending(std::uint64_t v) { return (v >> 30) & kCountMask; }
inline std::uint32_t mbar_parity(std::uint64_t v) { return static_cast<std::uint32_t>(v >> 63); }
inline std::uint64_t mbar_make(std::uint64_t count, std::uint64_t pending, std::uint32_t parity) {
  return count | (pending << 30) | (static_cast<std::uint64_t>(parity) << 63);
}

// Has the phase of parity `parity` completed? (Yes for the phase before the
// current one, as mbarrier.try_wait.parity answers.)
inline bool mbar_done(const std::uint64_t* bar, std::uint32_t parity) { return mbar_parity(*bar) != (parity & 1u); }

inline void mbar_wait(std::uint64_t* bar, std::uint32_t parity, const Site& site) {
  if (mbar_done(bar, parity)) return;
  if (BlockRunner* r = active_runner) r->wait_until(bar, site, [&] { return mbar_done(bar, parity); });
}

}  // namespace cpu::detail

namespace mbarrier {

inline void init(std::uint64_t* bar, std::uint32_t count) { *bar = cpu::detail::mbar_make(count, count, 0); }

inline std::uint64_t arrive(std::uint64_t* bar) {
  using namespace cpu::detail;
  const std::uint64_t v = *bar;
  const std::uint64_t count = mbar_count(v);
  const std::uint64_t pending = mbar_pending(v);
  if (pending <= 1) {
    *bar = mbar_make(count, count, mbar_parity(v) ^ 1u);
    if (BlockRunner* r = active_runner) r->wake(bar);
  } else {
    *bar = mbar_make(count, pending - 1, mbar_parity(v));
  }
  return v;
}

inline std::uint64_t arrive_expect_tx(std::uint64_t* bar, std::uint32_t) { return arrive(bar); }
inline void expect_tx(std::uint64_t*, std::uint32_t) {}
inline bool try_wait_parity(std::uint64_t* bar, std::uint32_t parity) { return cpu::detail::mbar_done(bar, parity); }

inline void wait_parity(std::uint64_t* bar, std::uint32_t parity, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
  cpu::detail::mbar_wait(bar, parity, {"mbarrier wait", file, line});
}

inline void inval(std::uint64_t*) {}

}  // namespace mbarrier

namespace event {

inline void init(std::uint64_t* bars, int n, std::uint32_t count, int tid) {
  for (int i = tid; i < n; i += static_cast<int>(blockDim.x * blockDim.y * blockDim.z)) mbarrier::init(bars + i, count);
}

inline void arrive(std::uint64_t* bar) { mbarrier::arrive(bar); }

inline void arrive_tx(std::uint64_t* bar, std::uint32_t, bool) { mbarrier::arrive(bar); }

inline void wait_parity(std::uint64_t* bar, std::uint32_t parity, const char* name, int index,
                        const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  cpu::detail::Site site{name, file, line};
  site.event = true;
  site.index = index;
  cpu::detail::mbar_wait(bar, parity, site);
}

inline void wait(std::uint64_t* bar, std::uint32_t& phases, int index, const char* name,
                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  const int bit = index < 0 ? 0 : index;
  wait_parity(bar, (phases >> bit) & 1u, name, index, file, line);
  phases ^= 1u << bit;
}

}  // namespace event

inline void fence_mbarrier_init() {}

inline void named_barrier_sync(std::uint32_t id, std::uint32_t thread_count, const char* file = __builtin_FILE(),
                               int line = __builtin_LINE()) {
  if (auto* r = cpu::detail::active_runner) r->sync_named(id, thread_count, {"a named barrier", file, line});
}

inline void named_barrier_arrive(std::uint32_t id, std::uint32_t thread_count) {
  if (auto* r = cpu::detail::active_runner) r->arrive_named(id, thread_count);
}

}  // namespace croq
