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
//   arrive(bar)                       one arrival
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

CROQ_DEVICE void arrive(std::uint64_t* bar) { mbarrier::arrive(bar); }

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
