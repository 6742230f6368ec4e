// croq/device/arch.h: which PTX features the current compilation pass has.
//
// nvcc compiles a .cu file once for the host and once per device target. The
// wrappers in croq/device/ contain their inline PTX only in device passes
// whose architecture has the instruction; in other device passes (an sm_86
// pass over a kernel that also has an sm_90a path, say) the body traps at run
// time instead, so one source file can be built for several targets.
//
//   CROQ_SM80_ENABLED   device pass, sm_80 or newer: ldmatrix, mma.sync m16n8k16, cp.async, mbarrier
//   CROQ_SM89_ENABLED   device pass, sm_89 or newer: mma.sync m16n8k32 on e4m3 / e5m2
//   CROQ_SM90_ENABLED   device pass, sm_90 or newer: TMA, mbarrier tx-count/try_wait, stmatrix,
//                       fence.proxy.async, elect.sync
//   CROQ_SM90A_ENABLED  device pass, sm_90a (arch-specific features): wgmma, setmaxnreg
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
#define CROQ_SM80_ENABLED 1
#else
#define CROQ_SM80_ENABLED 0
#endif

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
#define CROQ_SM89_ENABLED 1
#else
#define CROQ_SM89_ENABLED 0
#endif

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
#define CROQ_SM90_ENABLED 1
#else
#define CROQ_SM90_ENABLED 0
#endif

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CROQ_SM90A_ENABLED 1
#else
#define CROQ_SM90A_ENABLED 0
#endif

#define CROQ_DEVICE __device__ __forceinline__

// The body of a wrapper compiled for a device target that lacks its
// instruction: trap if it is ever executed. Empty in the host pass, where
// device function bodies are parsed but not compiled.
#if defined(__CUDA_ARCH__)
#define CROQ_UNSUPPORTED_ARCH() __trap()
#else
#define CROQ_UNSUPPORTED_ARCH() ((void)0)
#endif

namespace croq {

// The 32-bit shared-state-space address of a pointer into shared memory
// (`cvta.to.shared`), the form that ldmatrix, cp.async, mbarrier, TMA and
// stmatrix take as their shared-memory operand.
CROQ_DEVICE std::uint32_t cvta_shared(const void* smem_ptr) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_ptr));
}

}  // namespace croq
