// croq/device/event.h: `shared event`s (spec 14) as mbarriers.
//
// An event is an mbarrier in shared memory whose arrival count croqc derives
// from the threads that trigger it (each triggering thread arrives, so each
// releases its own accesses). Every waiting thread keeps, per event
// array, a mask of phase parities (bit i for element i): a wait returns once
// the phase with the parity of its bit has completed and then flips the bit,
// so the same event is reused every iteration (spec 14.2). Events declared
// `= ready` start with every bit set: their first wait returns at once.
//
//   init(bars, n, count, tid)         mbarrier.init of bars[0..n) for `count` arrivals (threads tid, tid + blockDim, ...)
//   arrive(bar)                       one arrival (sm_90: a warp's arriving threads together, counted)
//   arrive_cluster<C>(bar)            one arrival on the event in each of the C blocks of the cluster
//   arrive_tx(bar, bytes, tma)        one arrival that expects `bytes` of TMA transactions (a plain arrival when
//                                     the copies ran without TMA)
//   wait(bar, phases, i, name)        waits for the phase of parity bit i of `phases` (bit 0 for a single event,
//                                     i = -1), then flips the bit
//   wait_parity(bar, parity, name, i) waits for the phase of parity `parity` (`e.at(order)`, spec 14.5)
//
// `name` and `i` name the event in the CPU runtime's deadlock reports; the
// GPU ignores them.
#pragma once

#include <cstdint>

#include "croq/device/arch.h"
#include "croq/device/mbarrier.h"

namespace croq {
namespace event {

CROQ_DEVICE void init(std::uint64_t* bars, int n, std::uint32_t count, int tid) {
  for (int i = tid; i < n; i += static_cast<int>(blockDim.x)) mbarrier::init(bars + i, count);
}

// The threads of a warp that arrive together arrive through one of them,
// with their count, after a warp barrier that orders their accesses before
// its release: the count for that thread, 0 for the others.
CROQ_DEVICE std::uint32_t warp_arrivals() {
  const unsigned active = __activemask();
  __syncwarp(active);
  const bool leader = (threadIdx.x % 32) == static_cast<unsigned>(__ffs(active) - 1);
  return leader ? static_cast<std::uint32_t>(__popc(active)) : 0u;
}

CROQ_DEVICE void arrive(std::uint64_t* bar) {
#if CROQ_SM90_ENABLED
  if (const std::uint32_t n = warp_arrivals()) mbarrier::arrive_count(bar, n);
#else
  mbarrier::arrive(bar);
#endif
}

// `trigger.cluster`: the arriving threads arrive on the event at the same
// offset in each of the `Cluster` blocks of the cluster (sm_90).
template <int Cluster>
CROQ_DEVICE void arrive_cluster(std::uint64_t* bar) {
#if CROQ_SM90_ENABLED
  if (const std::uint32_t n = warp_arrivals()) {
#pragma unroll
    for (int cta = 0; cta < Cluster; ++cta) mbarrier::arrive_remote(bar, static_cast<std::uint32_t>(cta), n);
  }
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void arrive_tx(std::uint64_t* bar, std::uint32_t bytes, bool tma) {
  if (tma) mbarrier::arrive_expect_tx(bar, bytes);
  else mbarrier::arrive(bar);
}

CROQ_DEVICE void wait_parity(std::uint64_t* bar, std::uint32_t parity, const char* /*name*/, int /*index*/) {
  mbarrier::wait_parity(bar, parity);
}

CROQ_DEVICE void wait(std::uint64_t* bar, std::uint32_t& phases, int index, const char* /*name*/) {
  const int bit = index < 0 ? 0 : index;
  mbarrier::wait_parity(bar, (phases >> bit) & 1u);
  phases ^= 1u << bit;
}

}  // namespace event
}  // namespace croq
