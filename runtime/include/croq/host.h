// croq/host.h: the host-side API that `.co` programs and generated host
// wrappers use (spec section 3).
//
//   spanned_view<T, Rank>   non-owning (pointer, shape), row-major, host or device memory
//   spanned_data<T, Rank>   owning host tensor (unique_ptr storage), same API plus fill
//   make_spandata<T>(d0, d1, ...)             allocate an owning host tensor
//   make_spanview<Rank>(ptr, {d0, ...})       wrap a pointer (also <T, Rank> and <Rank, T>)
//   make_spanned<Rank>(ptr, {d0, ...})        older name of make_spanview
//   croq_assert / choreo_assert / abend_true  checks that print file:line and abort
//   abend_true(cudaError_t)                   abort with the CUDA error unless it is cudaSuccess
//   runtime_check(cond, msg)                  abort with "runtime check failed: msg"
//   CROQ_CUDA_CHECK(expr)                     exit with the CUDA error string on failure
//   fill / fill_n, utils::fill_random         fill memory (host memory for the random fills)
//   copy_as_spanned<Rank>(ptr, {d0, ...})     an owning copy of host memory
//   device_buffer<T>(count, stream)           owning device memory, ordered on a stream
//   stream_wait(waiter, producer)             later work on `waiter` waits for `producer`'s
//   check_shared_memory(fn, kernel, bytes, {{buffer, shape, bytes}, ...})
//                                             a launch's run-time sized shared memory fits a block
//   reserve_thread_stack(fn, kernel, kernel_ptr, bytes, {{buffer, shape, bytes}, ...})
//                                             each thread's stack holds its run-time sized local buffers
//   block_threads(fn, kernel, extent, n, threads)
//                                             a block of a run-time number of warps fits
//   poison(ptr, count)                        fill device memory with 0xFF bytes (NaN / -1)
//
// Timing (TimerOption, timing, gpu_timer, time_ms) is in croq/timing.h, the
// result checks (verify_matmul_*) in croq/verify.h.
//
// Random fills draw from one process-wide generator. Its seed is fresh on every
// run unless the environment sets CROQ_SEED (decimal or 0x-hex); the seed in
// use is available from random_seed() so a failing test can print it.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "croq/scalar.h"
#include "croq/types.h"

// Evaluates a CUDA runtime call; on failure prints file:line, the error name
// and string and the failing expression, then exits with status 1.
#define CROQ_CUDA_CHECK(expr)                                                                          \
  do {                                                                                                 \
    cudaError_t croq_cuda_status_ = (expr);                                                            \
    if (croq_cuda_status_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: CUDA error %s: %s\n  in: %s\n", __FILE__, __LINE__,                 \
                   cudaGetErrorName(croq_cuda_status_), cudaGetErrorString(croq_cuda_status_), #expr); \
      std::exit(EXIT_FAILURE);                                                                         \
    }                                                                                                  \
  } while (0)

// Host-side index checks on spanned_view/spanned_data subscripts are on unless
// NDEBUG is defined; define CROQ_BOUNDS_CHECK to 0 or 1 to force either way.
#ifndef CROQ_BOUNDS_CHECK
#ifdef NDEBUG
#define CROQ_BOUNDS_CHECK 0
#else
#define CROQ_BOUNDS_CHECK 1
#endif
#endif

namespace croq {

// ---------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------

namespace detail {

[[noreturn]] inline void fail_at(const char* file, int line, const char* what, const char* msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, msg);
  std::fflush(stderr);
  std::abort();
}

}  // namespace detail

// Aborts with "file:line: assertion failed: msg" when `cond` is false. The
// location is the caller's (captured by the default arguments).
inline void croq_assert(bool cond, const char* msg, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
  if (!cond) detail::fail_at(file, line, "assertion failed", msg);
}

inline void croq_assert(bool cond, const std::string& msg, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
  if (!cond) detail::fail_at(file, line, "assertion failed", msg.c_str());
}

inline void choreo_assert(bool cond, const char* msg, const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  if (!cond) detail::fail_at(file, line, "assertion failed", msg);
}

inline void choreo_assert(bool cond, const std::string& msg, const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  if (!cond) detail::fail_at(file, line, "assertion failed", msg.c_str());
}

// "Abnormal end if true": the inverse of croq_assert.
inline void abend_true(bool cond, const char* msg = "abnormal end", const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  if (cond) detail::fail_at(file, line, "abnormal end", msg);
}

inline void abend_true(bool cond, const std::string& msg, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  if (cond) detail::fail_at(file, line, "abnormal end", msg.c_str());
}

// abend_true(cudaMalloc(...)): aborts with the CUDA error's name and string
// unless the call returned cudaSuccess.
inline void abend_true(cudaError_t status, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (status == cudaSuccess) return;
  std::string msg = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  detail::fail_at(file, line, "CUDA error", msg.c_str());
}

// Aborts with "file:line: runtime check failed: msg" when `cond` is false.
inline void runtime_check(bool cond, const char* msg, const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  if (!cond) detail::fail_at(file, line, "runtime check failed", msg);
}

inline void runtime_check(bool cond, const std::string& msg, const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  if (!cond) detail::fail_at(file, line, "runtime check failed", msg.c_str());
}

// Sets [begin, end) or `count` elements from `begin` to `value` (host or
// device code; host memory from the host).
template <typename T>
CROQ_HOST_DEVICE void fill(T* begin, T* end, const T& value) {
  for (T* p = begin; p < end; ++p) *p = value;
}

template <typename T>
CROQ_HOST_DEVICE void fill_n(T* begin, std::size_t count, const T& value) {
  for (std::size_t i = 0; i < count; ++i) begin[i] = value;
}

// ---------------------------------------------------------------------------
// Random numbers
// ---------------------------------------------------------------------------

namespace detail {

inline std::uint64_t initial_seed() {
  if (const char* env = std::getenv("CROQ_SEED"); env != nullptr && *env != '\0')
    return std::strtoull(env, nullptr, 0);
  std::random_device device;
  std::uint64_t seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  seed ^= static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return seed;
}

struct random_state {
  std::uint64_t seed;
  std::mt19937_64 engine;
  random_state() : seed(initial_seed()), engine(seed) {}
};

inline random_state& rng() {
  static random_state state;
  return state;
}

}  // namespace detail

// The seed of the process-wide generator used by fill_random.
inline std::uint64_t random_seed() { return detail::rng().seed; }

// Restarts the process-wide generator from `seed`.
inline void set_random_seed(std::uint64_t seed) {
  detail::rng().seed = seed;
  detail::rng().engine.seed(seed);
}

// ---------------------------------------------------------------------------
// Shapes and indexing
// ---------------------------------------------------------------------------

template <std::size_t Rank>
using shape_t = std::array<std::size_t, Rank>;

// One dimension in a braced shape list such as `{M, K}`: accepts any integer
// type without a narrowing error and keeps the sign so that negative extents
// can be reported instead of wrapping around.
struct extent {
  long long value;
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  constexpr extent(I v) : value(static_cast<long long>(v)) {}
};

namespace detail {

template <std::size_t Rank>
shape_t<Rank> checked_shape(const long long (&dims)[Rank], bool allow_zero, const char* who, const char* file,
                            int line) {
  shape_t<Rank> shape{};
  for (std::size_t d = 0; d < Rank; ++d) {
    if (dims[d] < 0 || (dims[d] == 0 && !allow_zero)) {
      std::string msg = std::string(who) + ": dimension " + std::to_string(d) + " is " +
                        std::to_string(dims[d]) + "; dimensions must be " +
                        (allow_zero ? "non-negative" : "positive");
      fail_at(file, line, "invalid shape", msg.c_str());
    }
    shape[d] = static_cast<std::size_t>(dims[d]);
  }
  return shape;
}

template <std::size_t Rank>
constexpr shape_t<Rank> row_major_strides(const shape_t<Rank>& shape) {
  shape_t<Rank> strides{};
  std::size_t stride = 1;
  for (std::size_t d = Rank; d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

inline void check_index(std::size_t index, std::size_t extent_value) {
#if CROQ_BOUNDS_CHECK
  if (index >= extent_value) {
    std::string msg = "index " + std::to_string(static_cast<long long>(index)) +
                      " is out of range for a dimension of extent " + std::to_string(extent_value);
    fail_at(__FILE__, __LINE__, "out-of-range subscript", msg.c_str());
  }
#else
  (void)index;
  (void)extent_value;
#endif
}

template <typename T, std::size_t Rank>
class index_proxy;

// `base[i]` over the outermost of `Rank` remaining dimensions: an element
// reference when one dimension is left, otherwise a proxy for the rest.
template <typename T, std::size_t Rank>
decltype(auto) subscript(T* base, const std::size_t* shape, const std::size_t* strides, std::size_t i) {
  check_index(i, shape[0]);
  if constexpr (Rank == 1)
    return (base[i]);
  else
    return index_proxy<T, Rank - 1>(base + i * strides[0], shape + 1, strides + 1);
}

// The result of `d[i]` on a tensor of rank > 1; lives only inside the
// subscript expression `d[i][j]...`.
template <typename T, std::size_t Rank>
class index_proxy {
 public:
  index_proxy(T* base, const std::size_t* shape, const std::size_t* strides)
      : base_(base), shape_(shape), strides_(strides) {}
  decltype(auto) operator[](std::size_t i) const { return subscript<T, Rank>(base_, shape_, strides_, i); }

 private:
  T* base_;
  const std::size_t* shape_;
  const std::size_t* strides_;
};

template <typename T, typename V>
T convert_to(V v) {
  return cvt<T>(v);
}

template <typename T>
bool element_equal(const T& a, const T& b) {
  if constexpr (std::is_arithmetic_v<T>)
    return a == b;
  else
    return to_f32(a) == to_f32(b);
}

// A fill bound as a double: arithmetic values as they are, element types
// (f16, fp8, ...) through f32.
template <typename V>
double bound_value(V v) {
  if constexpr (std::is_arithmetic_v<V>)
    return static_cast<double>(v);
  else
    return static_cast<double>(to_f32(v));
}

// Uniform random values for `count` elements at `data`: integer types (the
// sub-byte ones too) in [lo, hi] with both ends included, floating types in
// [lo, hi] before rounding to T. The bounds may be any arithmetic or element
// type.
template <typename T, typename L, typename H>
void fill_random_range(T* data, std::size_t count, L lo, H hi) {
  const double dlo = bound_value(lo);
  const double dhi = bound_value(hi);
  croq_assert(dlo <= dhi, "fill_random: lower bound is greater than the upper bound");
  auto& engine = rng().engine;
  if constexpr (is_integer_v<T>) {
    std::uniform_int_distribution<long long> dist(static_cast<long long>(std::ceil(dlo)),
                                                  static_cast<long long>(std::floor(dhi)));
    for (std::size_t i = 0; i < count; ++i) data[i] = static_cast<T>(dist(engine));
  } else {
    static_assert(is_floating_v<T>, "fill_random needs an element type");
    std::uniform_real_distribution<double> dist(dlo, dhi);
    for (std::size_t i = 0; i < count; ++i) data[i] = convert_to<T>(dist(engine));
  }
}

}  // namespace detail

namespace utils {

// Croqtile's utils::fill_random(array, N, lb, ub): `count` uniform random
// values in [lo, hi] (as spanned_data::fill_random) into host memory.
template <typename T, typename L, typename H>
void fill_random(T* data, std::size_t count, L lo, H hi) {
  detail::fill_random_range(data, count, lo, hi);
}

}  // namespace utils

// ---------------------------------------------------------------------------
// spanned_view
// ---------------------------------------------------------------------------

// A non-owning row-major view: a pointer (host or device) and a shape.
// Copying a view copies the pointer; constness of the view does not make the
// elements const (use spanned_view<const T, Rank> for that).
template <typename T, std::size_t Rank>
class spanned_view {
  static_assert(Rank >= 1, "a spanned_view has at least one dimension");

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  spanned_view() = default;
  spanned_view(T* data, const shape_t<Rank>& shape)
      : data_(data), shape_(shape), strides_(detail::row_major_strides(shape)) {}

  // spanned_view<T> converts to spanned_view<const T>.
  template <typename U, std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
  spanned_view(const spanned_view<U, Rank>& other) : spanned_view(other.data(), other.shape()) {}

  static constexpr std::size_t rank() { return Rank; }
  const shape_t<Rank>& shape() const { return shape_; }
  // Row-major strides in elements (the last one is 1).
  const shape_t<Rank>& strides() const { return strides_; }
  std::size_t element_count() const {
    std::size_t n = 1;
    for (std::size_t d : shape_) n *= d;
    return n;
  }
  std::size_t bytes() const { return element_count() * sizeof(T); }
  T* data() const { return data_; }

  // d[i][j]...: an element reference after Rank subscripts. Host memory only.
  decltype(auto) operator[](std::size_t i) const {
    return detail::subscript<T, Rank>(data_, shape_.data(), strides_.data(), i);
  }

  // d.at(i, j, ...): the same element with all indices at once.
  template <typename... I>
  T& at(I... indices) const {
    static_assert(sizeof...(I) == Rank, "at() takes one index per dimension");
    const std::size_t index[] = {static_cast<std::size_t>(indices)...};
    std::size_t offset = 0;
    for (std::size_t d = 0; d < Rank; ++d) {
      detail::check_index(index[d], shape_[d]);
      offset += index[d] * strides_[d];
    }
    return data_[offset];
  }

  // Sets every element to `value` converted to T. Host memory only.
  template <typename V>
  void fill(V value) const {
    const value_type v = detail::convert_to<value_type>(value);
    for (std::size_t i = 0; i < element_count(); ++i) data_[i] = v;
  }
  // Uniform random values, as spanned_data::fill_random. Host memory only.
  template <typename L, typename H>
  void fill_random(L lo, H hi) const {
    detail::fill_random_range(data_, element_count(), lo, hi);
  }
  void fill_fp8(float value) const { fill(value); }
  void fill_random_fp8(float lo, float hi) const { fill_random(lo, hi); }

 private:
  T* data_ = nullptr;
  shape_t<Rank> shape_{};
  shape_t<Rank> strides_{};
};

// ---------------------------------------------------------------------------
// spanned_data
// ---------------------------------------------------------------------------

// An owning, row-major, host-resident tensor. Move-only; clone() copies.
template <typename T, std::size_t Rank>
class spanned_data {
  static_assert(Rank >= 1, "a spanned_data has at least one dimension");

 public:
  using element_type = T;
  using value_type = T;

  spanned_data() = default;
  explicit spanned_data(const shape_t<Rank>& shape) {
    std::size_t count = 1;
    for (std::size_t d : shape) count *= d;
    storage_ = std::make_unique<T[]>(count);
    view_ = spanned_view<T, Rank>(storage_.get(), shape);
  }

  spanned_data(spanned_data&& other) noexcept
      : storage_(std::move(other.storage_)), view_(std::exchange(other.view_, {})) {}
  spanned_data& operator=(spanned_data&& other) noexcept {
    storage_ = std::move(other.storage_);
    view_ = std::exchange(other.view_, {});
    return *this;
  }
  spanned_data(const spanned_data&) = delete;
  spanned_data& operator=(const spanned_data&) = delete;

  spanned_data clone() const {
    spanned_data copy(shape());
    for (std::size_t i = 0; i < element_count(); ++i) copy.storage_[i] = storage_[i];
    return copy;
  }

  static constexpr std::size_t rank() { return Rank; }
  const shape_t<Rank>& shape() const { return view_.shape(); }
  const shape_t<Rank>& strides() const { return view_.strides(); }
  std::size_t element_count() const { return view_.element_count(); }
  std::size_t bytes() const { return view_.bytes(); }
  T* data() { return storage_.get(); }
  const T* data() const { return storage_.get(); }

  spanned_view<T, Rank> view() { return view_; }
  spanned_view<const T, Rank> view() const { return view_; }
  operator spanned_view<T, Rank>() { return view_; }
  operator spanned_view<const T, Rank>() const { return view_; }

  decltype(auto) operator[](std::size_t i) { return view_[i]; }
  decltype(auto) operator[](std::size_t i) const {
    return detail::subscript<const T, Rank>(storage_.get(), shape().data(), strides().data(), i);
  }

  template <typename... I>
  T& at(I... indices) {
    return view_.at(indices...);
  }
  template <typename... I>
  const T& at(I... indices) const {
    return view_.at(indices...);
  }

  // Sets every element to `value`.
  void fill(const T& value) {
    for (std::size_t i = 0; i < element_count(); ++i) storage_[i] = value;
  }
  // Sets every element to `value` converted to T (e.g. fill(0.5f) on f16).
  template <typename V, std::enable_if_t<std::is_arithmetic_v<V> && !std::is_same_v<V, T>, int> = 0>
  void fill(V value) {
    fill(detail::convert_to<T>(value));
  }

  // Uniform random values: integers in [lo, hi] (both ends included),
  // floating types in [lo, hi] before rounding to T.
  template <typename L, typename H>
  void fill_random(L lo, H hi) {
    detail::fill_random_range(storage_.get(), element_count(), lo, hi);
  }
  // Croqtile's spellings for fp8 data (any T works).
  void fill_fp8(float value) { fill(value); }
  void fill_random_fp8(float lo, float hi) { fill_random(lo, hi); }

  // Same shape and every element equal (floating types compare by value, so
  // NaN != NaN and -0 == +0).
  friend bool operator==(const spanned_data& a, const spanned_data& b) {
    if (a.shape() != b.shape()) return false;
    for (std::size_t i = 0; i < a.element_count(); ++i)
      if (!detail::element_equal(a.storage_[i], b.storage_[i])) return false;
    return true;
  }
  friend bool operator!=(const spanned_data& a, const spanned_data& b) { return !(a == b); }

 private:
  std::unique_ptr<T[]> storage_;
  spanned_view<T, Rank> view_;
};

// ---------------------------------------------------------------------------
// Factories
// ---------------------------------------------------------------------------

// make_spandata<f16>(M, K): an owning host tensor of shape [M, K].
template <typename T, typename... Dims,
          std::enable_if_t<(sizeof...(Dims) >= 1) && (std::is_integral_v<Dims> && ...), int> = 0>
spanned_data<T, sizeof...(Dims)> make_spandata(Dims... dims) {
  const long long raw[] = {static_cast<long long>(dims)...};
  return spanned_data<T, sizeof...(Dims)>(
      detail::checked_shape(raw, false, "make_spandata", __FILE__, __LINE__));
}

// make_spandata<f16>(other.shape()): an owning host tensor of a given shape.
template <typename T, std::size_t Rank>
spanned_data<T, Rank> make_spandata(const shape_t<Rank>& shape) {
  for (std::size_t d : shape) croq_assert(d > 0, "make_spandata: dimensions must be positive");
  return spanned_data<T, Rank>(shape);
}

namespace detail {
template <typename T, std::size_t Rank>
spanned_view<T, Rank> make_view(T* ptr, const extent (&dims)[Rank], const char* who) {
  long long raw[Rank];
  for (std::size_t d = 0; d < Rank; ++d) raw[d] = dims[d].value;
  return spanned_view<T, Rank>(ptr, checked_shape(raw, true, who, __FILE__, __LINE__));
}
}  // namespace detail

// make_spanview<2>(ptr, {M, K}) and make_spanview<2, float>(ptr, {M, K}).
template <std::size_t Rank, typename T>
spanned_view<T, Rank> make_spanview(T* ptr, const extent (&dims)[Rank]) {
  return detail::make_view<T, Rank>(ptr, dims, "make_spanview");
}

// make_spanview<float, 2>(ptr, {M, K}).
template <typename T, std::size_t Rank>
spanned_view<T, Rank> make_spanview(T* ptr, const extent (&dims)[Rank]) {
  return detail::make_view<T, Rank>(ptr, dims, "make_spanview");
}

// Older name of make_spanview (host pointers in the tutorial).
template <std::size_t Rank, typename T>
spanned_view<T, Rank> make_spanned(T* ptr, const extent (&dims)[Rank]) {
  return detail::make_view<T, Rank>(ptr, dims, "make_spanned");
}

template <typename T, std::size_t Rank>
spanned_view<T, Rank> make_spanned(T* ptr, const extent (&dims)[Rank]) {
  return detail::make_view<T, Rank>(ptr, dims, "make_spanned");
}

// make_spanview<f16, 2>(void_ptr, {M, K}): a typed view of untyped memory
// (cudaMalloc'd buffers held as void*).
template <typename T, std::size_t Rank>
spanned_view<T, Rank> make_spanview(void* ptr, const extent (&dims)[Rank]) {
  return detail::make_view<T, Rank>(static_cast<T*>(ptr), dims, "make_spanview");
}

// With the element type named first, the view's elements are not const,
// whatever the pointer's (as Croqtile's make_spanview<T, Rank> makes them):
// a `const uint8_t*` argument of an `extern "C"` entry viewed as
// make_spanview<f8_e4m3, 2>(a, {M, K}) passes to a `__co__` function.
template <typename T, std::size_t Rank>
spanned_view<std::remove_const_t<T>, Rank> make_spanview(const void* ptr, const extent (&dims)[Rank]) {
  using U = std::remove_const_t<T>;
  return detail::make_view<U, Rank>(const_cast<U*>(static_cast<const U*>(ptr)), dims, "make_spanview");
}

template <typename T, std::size_t Rank, std::enable_if_t<!std::is_const_v<T>, int> = 0>
spanned_view<T, Rank> make_spanview(const T* ptr, const extent (&dims)[Rank]) {
  return detail::make_view<T, Rank>(const_cast<T*>(ptr), dims, "make_spanview");
}

// make_spanview(array): a view of a C array of one or two dimensions.
template <typename T, std::size_t N>
spanned_view<T, 1> make_spanview(T (&array)[N]) {
  return spanned_view<T, 1>(&array[0], {N});
}

template <typename T, std::size_t N, std::size_t M>
spanned_view<T, 2> make_spanview(T (&array)[N][M]) {
  return spanned_view<T, 2>(&array[0][0], {N, M});
}

// copy_as_spanned<2>(ptr, {M, K}): an owning host tensor holding a copy of the
// M * K elements at `ptr` (host memory).
template <std::size_t Rank, typename T>
spanned_data<std::remove_cv_t<T>, Rank> copy_as_spanned(T* ptr, const extent (&dims)[Rank]) {
  spanned_view<T, Rank> source = detail::make_view<T, Rank>(ptr, dims, "copy_as_spanned");
  spanned_data<std::remove_cv_t<T>, Rank> copy = make_spandata<std::remove_cv_t<T>>(source.shape());
  for (std::size_t i = 0; i < source.element_count(); ++i) copy.data()[i] = ptr[i];
  return copy;
}

// ---------------------------------------------------------------------------
// Device memory helpers
// ---------------------------------------------------------------------------

// Fills `count` elements of device memory with 0xFF bytes: NaN for every
// floating type (f16, bf16, f32, f64; fp8 e4m3 0xFF is NaN too), -1 for
// signed integers, the maximum for unsigned ones. Tests poison outputs so
// that an element the kernel never writes cannot pass by accident.
template <typename T>
void poison(T* device_ptr, std::size_t count) {
  CROQ_CUDA_CHECK(cudaMemset(static_cast<void*>(device_ptr), 0xFF, count * sizeof(T)));
}

template <typename T, std::size_t Rank>
void poison(const spanned_view<T, Rank>& device_view) {
  poison(device_view.data(), device_view.element_count());
}

// Owning device memory in stream order (cudaMallocAsync / cudaFreeAsync): the
// memory is allocated, copied and freed in the order of the work on `stream`,
// so a wrapper that returns while its kernels still run frees nothing early.
// copy_from_host returns once the host data is taken (it may be reused);
// copy_to_host returns when the data is on the host (it waits for the stream).
template <typename T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count, cudaStream_t stream = nullptr) : count_(count), stream_(stream) {
    CROQ_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), count * sizeof(T), stream_));
  }
  ~device_buffer() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
  }
  device_buffer(device_buffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)), stream_(other.stream_) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    std::swap(stream_, other.stream_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void copy_from_host(const T* host, std::size_t count) {
    croq_assert(count <= count_, "device_buffer: copy larger than the buffer");
    CROQ_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  void copy_to_host(T* host, std::size_t count) const {
    croq_assert(count <= count_, "device_buffer: copy larger than the buffer");
    CROQ_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    CROQ_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void poison() { croq::poison(ptr_, count_); }
  // Sets every element to `value` converted to T, in stream order.
  template <typename V>
  void fill(V value) {
    const T v = detail::convert_to<T>(value);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&v);
    bool zero = true;
    for (std::size_t i = 0; i < sizeof(T); ++i) zero = zero && bytes[i] == 0;
    if (zero) {
      CROQ_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, count_ * sizeof(T), stream_));
      return;
    }
    std::vector<T> host(count_, v);
    copy_from_host(host.data(), count_);
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
};

// Host code of a `__co__` function reads and writes single elements of
// device memory (spec 8.7): after all the device work queued before it (the
// whole device waits), and finished before the host goes on, one element per
// transfer. A loop over many elements pays a round trip for each.
template <typename T>
T host_load(const T* device_ptr, long long index) {
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  T value;
  CROQ_CUDA_CHECK(cudaMemcpy(&value, device_ptr + index, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}
template <typename T>
T host_load(const device_buffer<T>& buffer, long long index) {
  return host_load(static_cast<const T*>(buffer.get()), index);
}
template <typename T, typename V>
void host_store(T* device_ptr, long long index, V value) {
  const T v = detail::convert_to<T>(value);
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  CROQ_CUDA_CHECK(cudaMemcpy(device_ptr + index, &v, sizeof(T), cudaMemcpyHostToDevice));
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
}
template <typename T, typename V>
void host_store(device_buffer<T>& buffer, long long index, V value) {
  host_store(buffer.get(), index, value);
}

// One buffer whose size is known at the launch, for the messages of
// check_shared_memory and reserve_thread_stack.
struct buffer_size {
  const char* name;
  const char* shape;
  std::size_t bytes;
};

// Before launching `kernel` of `__co__` function `function` with `bytes` of
// dynamic shared memory: when that is more than a block of the current device
// may have, prints which buffers need how much and exits (instead of a launch
// that fails with an opaque error).
inline void check_shared_memory(const char* function, const char* kernel, std::size_t bytes,
                                std::initializer_list<buffer_size> buffers) {
  int device = 0;
  int limit = 0;
  CROQ_CUDA_CHECK(cudaGetDevice(&device));
  CROQ_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes <= static_cast<std::size_t>(limit)) return;
  std::fprintf(stderr, "croq: %s: kernel %s needs %zu bytes of shared memory, more than the %d bytes a block can have on this device:\n",
               function, kernel, bytes, limit);
  for (const buffer_size& b : buffers)
    std::fprintf(stderr, "  shared buffer `%s` (%s): %zu bytes\n", b.name, b.shape, b.bytes);
  std::fprintf(stderr, "  (buffers of constant size and alignment: %zu bytes)\n", [&] {
    std::size_t rest = bytes;
    for (const buffer_size& b : buffers) rest -= b.bytes < rest ? b.bytes : rest;
    return rest;
  }());
  std::exit(EXIT_FAILURE);
}

// Before launching `kernel` (`kernel_ptr`) of `__co__` function `function`,
// whose threads allocate `bytes` of run-time sized local buffers on their
// stacks when they start: makes the device's per-thread stack hold them and
// the kernel's own frame (with 1 KB for the calls it makes), raising the
// limit when it is smaller. When the device refuses, prints which buffers
// need how much and exits, instead of a kernel that overflows its stack.
inline void reserve_thread_stack(const char* function, const char* kernel, const void* kernel_ptr, std::size_t bytes,
                                 std::initializer_list<buffer_size> buffers) {
  cudaFuncAttributes attributes{};
  CROQ_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel_ptr));
  const std::size_t need = attributes.localSizeBytes + bytes + 1024;
  std::size_t have = 0;
  CROQ_CUDA_CHECK(cudaDeviceGetLimit(&have, cudaLimitStackSize));
  if (need <= have) return;
  const cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, need);
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  std::fprintf(stderr,
               "croq: %s: kernel %s needs %zu bytes of stack per thread for its local buffers of run-time size, "
               "and the device refused a stack that large (%s):\n",
               function, kernel, need, cudaGetErrorString(e));
  for (const buffer_size& b : buffers)
    std::fprintf(stderr, "  local buffer `%s` (%s): %zu bytes\n", b.name, b.shape, b.bytes);
#if defined(CROQ_CPU_RUNTIME)
  std::fprintf(stderr, "  (the CPU target gives each thread $CROQ_CPU_STACK_KB kilobytes of stack, less 64 KB)\n");
#endif
  std::exit(EXIT_FAILURE);
}

// The threads of a launch of `kernel` whose block has `instances` instances of
// `threads` threads (`parallel w by N : group` or `: thread` of a run-time
// N, spelled `extent`): exits with the values when that is no thread or more
// than the 1024 a block may have, instead of a launch that fails with an
// opaque error.
inline int block_threads(const char* function, const char* kernel, const char* extent, long long instances,
                         int threads) {
  const long long total = instances * threads;
  if (instances >= 1 && total <= 1024) return static_cast<int>(total);
  std::fprintf(stderr,
               "croq: %s: kernel %s would run %lld instances (`%s`) of %d thread%s, %lld threads per block, but a block "
               "has 1 to 1024 threads\n",
               function, kernel, instances, extent, threads, threads == 1 ? "" : "s", total);
  std::exit(EXIT_FAILURE);
}

// Work enqueued on `waiter` after this call starts only once the work enqueued
// on `producer` so far is done; the host does not wait.
inline void stream_wait(cudaStream_t waiter, cudaStream_t producer) {
  if (waiter == producer) return;
  cudaEvent_t done;
  CROQ_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CROQ_CUDA_CHECK(cudaEventRecord(done, producer));
  CROQ_CUDA_CHECK(cudaStreamWaitEvent(waiter, done, 0));
  CROQ_CUDA_CHECK(cudaEventDestroy(done));
}

}  // namespace croq
