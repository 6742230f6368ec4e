// croq/cpu/runtime.h: the CPU emulation runtime of `croqc --target=cpu`.
//
// croqc prints the same kernels and host wrappers for the CPU as for the GPU;
// this runtime makes them plain C++ for g++ or clang++. Its shim directory,
// croq/cpu/cuda/, comes first on the include path, so that the
// <cuda_runtime.h>, <cuda_fp16.h>, <cuda_bf16.h> and <cuda_fp8.h> of `.co`
// host code and of the croq headers are these, and no CUDA toolkit is needed.
//
//   croq/cpu/half.h        __half, __nv_bfloat16, fp8 types and conversions
//   croq/cpu/cuda_api.h    cudaMalloc, cudaMemcpy, errors, events, ... over host memory
//   croq/cpu/launch.h      croq::cpu::launch, threadIdx & co, fibers, barriers, deadlock reports
//   croq/cpu/intrinsics.h  shuffles, votes, atomics, fences, math intrinsics
//   croq/cpu/device.h      the croq device helpers (tile copies, MMA atoms), via croq/croq.h
//   croq/cpu/event.h       mbarriers, events and named barriers (with device.h)
//   croq/cpu/wgmma.h       the warpgroup MMA and copies into its swizzled operand tiles, via croq/croq.h
//
// CUDA's declaration specifiers become C++: `__global__`, `__device__` and
// `__host__` vanish, `__shared__` variables are per block (one block runs
// at a time on each core, so `static thread_local` is exactly that), and
// `__launch_bounds__` is ignored.
#pragma once

#define CROQ_CPU_RUNTIME 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __shared__ static thread_local
#define __constant__
#define __managed__
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))

#include "croq/cpu/cuda_api.h"
#include "croq/cpu/half.h"
#include "croq/cpu/intrinsics.h"
#include "croq/cpu/launch.h"
