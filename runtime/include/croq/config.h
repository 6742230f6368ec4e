// croq/config.h: the declaration specifier of runtime functions that host and
// device code both call (`__host__ __device__` under nvcc, plain `inline` for
// the host compiler and the CPU target).
#pragma once

#if defined(__CUDACC__)
#define CROQ_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CROQ_HOST_DEVICE inline
#endif
