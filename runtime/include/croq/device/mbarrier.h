// croq/device/mbarrier.h: shared-memory barriers with phases and transaction
// counts (`mbarrier`, a 64-bit object in shared memory).
//
// An mbarrier completes its current phase when the expected number of
// arrivals has arrived *and* its pending transaction count (bytes announced
// by expect_tx and delivered by TMA complete_tx) is zero; the phase parity
// then flips and a new phase begins with the same arrival count. Waiters
// name the parity of the phase they wait for: 0 for the first phase, then
// 1, 0, ... (flip a local `phase` bit each time a wait returns).
//
//   init(bar, count)              mbarrier.init.shared::cta.b64 [bar], count;                     sm_80
//   arrive(bar)                   mbarrier.arrive.shared::cta.b64 state, [bar];                   sm_80
//   arrive_expect_tx(bar, bytes)  mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], bytes;  sm_90
//   expect_tx(bar, bytes)         mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes;    sm_90
//   try_wait_parity(bar, parity)  mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity;      sm_90
//                                 (mbarrier.test_wait.parity on sm_80..sm_89)
//   wait_parity(bar, parity)      loops on try_wait_parity until the phase completed
//   inval(bar)                    mbarrier.inval.shared::cta.b64 [bar];                           sm_80
//
// Typical TMA use: one thread calls init(bar, 1) and fence_mbarrier_init()
// (croq/device/fence.h), then __syncthreads(); per stage one elected thread
// calls arrive_expect_tx(bar, tile_bytes) and issues the TMA loads with `bar`;
// every consumer calls wait_parity(bar, phase).
#pragma once

#include <cstdint>

#include "croq/device/arch.h"

namespace croq {
namespace mbarrier {

// Initializes the barrier at `bar` (8-byte aligned, shared) for `count` arrivals per phase.
CROQ_DEVICE void init(std::uint64_t* bar, std::uint32_t count) {
#if CROQ_SM80_ENABLED
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(cvta_shared(bar)), "r"(count) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// One arrival on the current phase; returns the opaque state token.
CROQ_DEVICE std::uint64_t arrive(std::uint64_t* bar) {
  std::uint64_t state = 0;
#if CROQ_SM80_ENABLED
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];\n"
               : "=l"(state)
               : "r"(cvta_shared(bar))
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
  return state;
}

// `count` arrivals at once (sm_90).
CROQ_DEVICE void arrive_count(std::uint64_t* bar, std::uint32_t count) {
#if CROQ_SM90_ENABLED
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(cvta_shared(bar)), "r"(count)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// `count` arrivals on the barrier at the same shared-memory offset as `bar`
// in block `cta` of this block's cluster (sm_90). The arrival releases at
// CTA scope (PTX's default): it orders what the arriving thread did before,
// which for a stage of a copy ring is reads that completed (WGMMA operands
// after their wait); a cluster-scope release would make every arrival wait
// for a fence over the whole cluster.
CROQ_DEVICE void arrive_remote(std::uint64_t* bar, std::uint32_t cta, std::uint32_t count) {
#if CROQ_SM90_ENABLED
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote], %2;\n"
      "}\n" ::"r"(cvta_shared(bar)),
      "r"(cta), "r"(count)
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// One arrival that also adds `bytes` to the transaction count of the current phase.
CROQ_DEVICE std::uint64_t arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  std::uint64_t state = 0;
#if CROQ_SM90_ENABLED
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;\n"
               : "=l"(state)
               : "r"(cvta_shared(bar)), "r"(bytes)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
  return state;
}

// Adds `bytes` to the transaction count of the current phase without arriving.
CROQ_DEVICE void expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
#if CROQ_SM90_ENABLED
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(cvta_shared(bar)),
               "r"(bytes)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// True when the phase with parity `parity` has completed. On sm_90 the
// hardware may suspend the thread for a while before answering false.
CROQ_DEVICE bool try_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
#if CROQ_SM90_ENABLED
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(cvta_shared(bar)), "r"(parity)
      : "memory");
#elif CROQ_SM80_ENABLED
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(cvta_shared(bar)), "r"(parity)
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
  return done != 0;
}

// Blocks until the phase with parity `parity` has completed.
CROQ_DEVICE void wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  while (!try_wait_parity(bar, parity)) {
  }
}

// Invalidates the barrier so its memory can be reused for something else.
CROQ_DEVICE void inval(std::uint64_t* bar) {
#if CROQ_SM80_ENABLED
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(cvta_shared(bar)) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

}  // namespace mbarrier
}  // namespace croq
