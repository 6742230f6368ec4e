// croq/device/warp.h: small warp- and warpgroup-level helpers.
//
//   lane_id()                   %laneid (0..31)
//   warp_id_in_warpgroup()      (threadIdx.x / 32) % 4, for a 1-D block
//   elect_one_sync()            elect.sync: true in exactly one active lane of the warp (sm_90;
//                               lane 0 on older targets, which assumes a converged warp)
//   cuda::setreg_inc<N>() / setreg_dec<N>()
//                               setmaxnreg.{inc,dec}.sync.aligned.u32 N (sm_90a): raise / lower
//                               the per-thread register budget of the warpgroup to N
//                               (24..256, multiple of 8). Elsewhere nothing: without the
//                               instruction every thread keeps the budget ptxas gave the
//                               kernel, which the code after the call was compiled for.
//                               Also callable as setreg_inc(N) with N a compile-time
//                               constant after inlining, the form `.co` code uses
//                               (`call croq::cuda::setreg_inc(240);`).
#pragma once

#include <cstdint>

#include "croq/device/arch.h"

namespace croq {

CROQ_DEVICE std::uint32_t lane_id() {
  std::uint32_t lane = 0;
#if defined(__CUDA_ARCH__)
  asm volatile("mov.u32 %0, %%laneid;\n" : "=r"(lane));
#endif
  return lane;
}

CROQ_DEVICE std::uint32_t warp_id_in_warpgroup() {
#if defined(__CUDA_ARCH__)
  return (threadIdx.x / 32u) % 4u;
#else
  return 0;
#endif
}

CROQ_DEVICE bool elect_one_sync() {
#if CROQ_SM90_ENABLED
  std::uint32_t elected = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "elect.sync _|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(elected));
  return elected != 0;
#else
  return lane_id() == 0;
#endif
}

namespace cuda {

template <int Regs>
CROQ_DEVICE void setreg_inc() {
  static_assert(Regs >= 24 && Regs <= 256 && Regs % 8 == 0, "setmaxnreg takes 24..256, multiple of 8");
#if CROQ_SM90A_ENABLED
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
#endif
}

template <int Regs>
CROQ_DEVICE void setreg_dec() {
  static_assert(Regs >= 24 && Regs <= 256 && Regs % 8 == 0, "setmaxnreg takes 24..256, multiple of 8");
#if CROQ_SM90A_ENABLED
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
#endif
}

namespace detail {
// Calls F<R>::run() for the legal register count R (24, 32, ..., 256) equal
// to `regs`; traps for any other value. With a constant argument the chain
// of comparisons folds to one instruction.
template <template <int> class F, int R = 24>
CROQ_DEVICE void dispatch_regs(int regs) {
  if constexpr (R <= 256) {
    if (regs == R) {
      F<R>::run();
      return;
    }
    dispatch_regs<F, R + 8>(regs);
  } else {
    (void)regs;
#if defined(__CUDA_ARCH__)
    __trap();
#endif
  }
}
template <int R>
struct setreg_inc_op {
  static CROQ_DEVICE void run() { setreg_inc<R>(); }
};
template <int R>
struct setreg_dec_op {
  static CROQ_DEVICE void run() { setreg_dec<R>(); }
};
}  // namespace detail

CROQ_DEVICE void setreg_inc(int regs) { detail::dispatch_regs<detail::setreg_inc_op>(regs); }
CROQ_DEVICE void setreg_dec(int regs) { detail::dispatch_regs<detail::setreg_dec_op>(regs); }

}  // namespace cuda
}  // namespace croq
