// croq/cpu/cuda_api.h: the part of the CUDA runtime API that `.co` host code
// and generated host wrappers call, over host memory, for `--target=cpu`.
//
//   memory     cudaMalloc / cudaFree / cudaMallocHost / cudaFreeHost / cudaMallocManaged,
//              cudaMemcpy[Async], cudaMemset[Async] (plain host memory, 256-byte aligned)
//   errors     cudaGetLastError / cudaPeekAtLastError / cudaGetErrorString / cudaGetErrorName
//   device     cudaDeviceSynchronize, cudaGetDeviceCount / cudaSetDevice / cudaGetDevice,
//              cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaDeviceReset
//   streams    cudaStreamCreate / Destroy / Synchronize (work runs when it is launched)
//   events     cudaEventCreate / Record / Synchronize / ElapsedTime / Query / Destroy
//              (host wall-clock time)
//   kernels    cudaFuncSetAttribute (the dynamic shared memory a kernel may use, checked
//              at launch as on the GPU), cudaFuncGetAttributes (no static local memory)
//   limits     cudaDeviceGetLimit / cudaDeviceSetLimit: the stack of a thread is its
//              fiber's ($CROQ_CPU_STACK_KB, croq/cpu/fiber.h) less what the emulation
//              itself needs; a larger one is refused
//   types      dim3, uint3 and the common vector types (int2, float4, ...)
//
// Kernel launches themselves are croq::cpu::launch (croq/cpu/launch.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "croq/cpu/fiber.h"

// ---- types ------------------------------------------------------------------

struct uint3 {
  unsigned x, y, z;
};

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

#define CROQ_CPU_VECTOR_TYPE(T, N2, N4) \
  struct N2 {                           \
    T x, y;                             \
  };                                    \
  struct alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)) N4 { \
    T x, y, z, w;                       \
  };                                    \
  inline N2 make_##N2(T x, T y) { return {x, y}; } \
  inline N4 make_##N4(T x, T y, T z, T w) { return {x, y, z, w}; }
CROQ_CPU_VECTOR_TYPE(int, int2, int4)
CROQ_CPU_VECTOR_TYPE(unsigned, uint2, uint4)
CROQ_CPU_VECTOR_TYPE(float, float2, float4)
CROQ_CPU_VECTOR_TYPE(double, double2, double4)
#undef CROQ_CPU_VECTOR_TYPE

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorCooperativeLaunchTooLarge = 720,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaSharedCarveout {
  cudaSharedmemCarveoutDefault = -1,
  cudaSharedmemCarveoutMaxL1 = 0,
  cudaSharedmemCarveoutMaxShared = 100,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};

enum cudaLimit {
  cudaLimitStackSize = 0,
  cudaLimitPrintfFifoSize = 1,
  cudaLimitMallocHeapSize = 2,
};

struct cudaFuncAttributes {
  std::size_t sharedSizeBytes;
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int maxDynamicSharedSizeBytes;
};

struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  std::size_t sharedMemPerBlockOptin;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int multiProcessorCount;
  int major;
  int minor;
};

struct CUstream_st {};
using cudaStream_t = CUstream_st*;

struct CUevent_st {
  std::chrono::steady_clock::time_point time;
  bool recorded = false;
};
using cudaEvent_t = CUevent_st*;

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00

namespace croq::cpu {

// The limits of one CTA, those of the cpu target in croqc (which mirror
// sm_90a): 1024 threads, 227 KB of dynamic shared memory after opting in,
// 48 KB without.
inline constexpr unsigned kMaxThreadsPerBlock = 1024;
inline constexpr std::size_t kDefaultSharedBytes = 48 * 1024;
inline constexpr std::size_t kMaxSharedBytes = 232448;

namespace detail {

inline cudaError_t& last_error() {
  static thread_local cudaError_t error = cudaSuccess;
  return error;
}

inline cudaError_t fail(cudaError_t e) {
  last_error() = e;
  return e;
}

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, n).
struct KernelAttributes {
  std::mutex mutex;
  std::map<const void*, std::size_t> max_dynamic_shared;
};

inline KernelAttributes& kernel_attributes() {
  static KernelAttributes attributes;
  return attributes;
}

inline std::size_t max_dynamic_shared(const void* kernel) {
  KernelAttributes& a = kernel_attributes();
  std::lock_guard<std::mutex> lock(a.mutex);
  auto it = a.max_dynamic_shared.find(kernel);
  return it == a.max_dynamic_shared.end() ? kDefaultSharedBytes : std::max(kDefaultSharedBytes, it->second);
}

inline void* allocate(std::size_t bytes) {
  // 256-byte alignment, like cudaMalloc, so that the runtime's vector paths
  // see the same alignment as on the GPU.
  const std::size_t size = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
  return std::aligned_alloc(256, size);
}

}  // namespace detail
}  // namespace croq::cpu

// ---- errors -----------------------------------------------------------------

inline cudaError_t cudaGetLastError() {
  cudaError_t e = croq::cpu::detail::last_error();
  croq::cpu::detail::last_error() = cudaSuccess;
  return e;
}

inline cudaError_t cudaPeekAtLastError() { return croq::cpu::detail::last_error(); }

inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
  }
  return "cudaErrorUnknown";
}

inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
  }
  return "unknown error";
}

// ---- memory -----------------------------------------------------------------

inline cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  if (ptr == nullptr) return croq::cpu::detail::fail(cudaErrorInvalidValue);
  *ptr = croq::cpu::detail::allocate(bytes);
  return *ptr ? cudaSuccess : croq::cpu::detail::fail(cudaErrorMemoryAllocation);
}

template <typename T>
cudaError_t cudaMalloc(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}

inline cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) { return cudaMalloc(ptr, bytes); }
template <typename T>
cudaError_t cudaMallocHost(T** ptr, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
inline cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned) { return cudaMalloc(ptr, bytes); }
template <typename T>
cudaError_t cudaMallocManaged(T** ptr, std::size_t bytes, unsigned = 1) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}

inline cudaError_t cudaFree(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* ptr) { return cudaFree(ptr); }
inline cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t) { return cudaMalloc(ptr, bytes); }
template <typename T>
cudaError_t cudaMallocAsync(T** ptr, std::size_t bytes, cudaStream_t stream) {
  return cudaMallocAsync(reinterpret_cast<void**>(ptr), bytes, stream);
}
inline cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) { return cudaFree(ptr); }

inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (static_cast<unsigned>(kind) > cudaMemcpyDefault) return croq::cpu::detail::fail(cudaErrorInvalidMemcpyDirection);
  if (bytes != 0 && (dst == nullptr || src == nullptr)) return croq::cpu::detail::fail(cudaErrorInvalidValue);
  if (bytes != 0) std::memmove(dst, src, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t = nullptr) {
  return cudaMemcpy(dst, src, bytes, kind);
}

inline cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  if (bytes != 0 && dst == nullptr) return croq::cpu::detail::fail(cudaErrorInvalidValue);
  if (bytes != 0) std::memset(dst, value, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t = nullptr) {
  return cudaMemset(dst, value, bytes);
}

// ---- device -----------------------------------------------------------------

// Kernels run to completion when they are launched: there is never anything
// to wait for, and no error of a running kernel to report (a launch error
// is reported by cudaGetLastError, as on the GPU).
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : croq::cpu::detail::fail(cudaErrorInvalidDevice);
}
inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}

inline int croq_cpu_core_count() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return croq::cpu::detail::fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof(*prop));
  std::strncpy(prop->name, "croq CPU emulation (croqc --target=cpu)", sizeof(prop->name) - 1);
  prop->totalGlobalMem = std::size_t(1) << 34;
  prop->sharedMemPerBlock = croq::cpu::kDefaultSharedBytes;
  prop->sharedMemPerBlockOptin = croq::cpu::kMaxSharedBytes;
  prop->sharedMemPerMultiprocessor = croq::cpu::kMaxSharedBytes;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = static_cast<int>(croq::cpu::kMaxThreadsPerBlock);
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->clockRate = 1000000;
  prop->multiProcessorCount = croq_cpu_core_count();
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return croq::cpu::detail::fail(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = static_cast<int>(croq::cpu::kMaxThreadsPerBlock); break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(croq::cpu::kDefaultSharedBytes); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = croq_cpu_core_count(); break;
    case cudaDevAttrComputeCapabilityMajor:
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(croq::cpu::kMaxSharedBytes); break;
    default: return croq::cpu::detail::fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// ---- streams and events -------------------------------------------------------

inline cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  *stream = new CUstream_st;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) { return cudaStreamCreate(stream); }
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
// Work runs when it is launched: every stream is always caught up.
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { return cudaSuccess; }

inline cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st;
  return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) { return cudaEventCreate(event); }
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t = nullptr) {
  if (event == nullptr) return croq::cpu::detail::fail(cudaErrorInvalidResourceHandle);
  event->time = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event == nullptr ? croq::cpu::detail::fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t event) {
  return event == nullptr ? croq::cpu::detail::fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (start == nullptr || end == nullptr || !start->recorded || !end->recorded)
    return croq::cpu::detail::fail(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return cudaSuccess;
}

// ---- kernels ------------------------------------------------------------------

inline cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
  if (value < 0 || static_cast<std::size_t>(value) > croq::cpu::kMaxSharedBytes)
    return croq::cpu::detail::fail(cudaErrorInvalidValue);
  auto& a = croq::cpu::detail::kernel_attributes();
  std::lock_guard<std::mutex> lock(a.mutex);
  a.max_dynamic_shared[kernel] = static_cast<std::size_t>(value);
  return cudaSuccess;
}

template <typename... P>
cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}

inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* kernel) {
  if (kernel == nullptr) return croq::cpu::detail::fail(cudaErrorInvalidValue);
  *attr = cudaFuncAttributes{};
  attr->maxThreadsPerBlock = static_cast<int>(croq::cpu::kMaxThreadsPerBlock);
  attr->maxDynamicSharedSizeBytes = static_cast<int>(croq::cpu::detail::max_dynamic_shared(kernel));
  return cudaSuccess;
}

template <typename... P>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, void (*kernel)(P...)) {
  return cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(kernel));
}

// ---- limits -------------------------------------------------------------------

namespace croq::cpu::detail {
// The part of a fiber's stack that the emulation's own frames (the launch
// loop, barriers, copies, printf) may take below a kernel's.
inline constexpr std::size_t kFiberStackReserve = 64 * 1024;
inline std::size_t thread_stack_bytes() {
  std::size_t fiber = fiber_stack_bytes();
  return fiber > kFiberStackReserve ? fiber - kFiberStackReserve : 0;
}
}  // namespace croq::cpu::detail

inline cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  switch (limit) {
    case cudaLimitStackSize: *value = croq::cpu::detail::thread_stack_bytes(); return cudaSuccess;
    case cudaLimitPrintfFifoSize:
    case cudaLimitMallocHeapSize: *value = std::size_t(1) << 30; return cudaSuccess;
  }
  return croq::cpu::detail::fail(cudaErrorInvalidValue);
}

inline cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (limit == cudaLimitStackSize && value > croq::cpu::detail::thread_stack_bytes())
    return croq::cpu::detail::fail(cudaErrorInvalidValue);
  return cudaSuccess;
}
