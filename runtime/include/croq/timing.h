// croq/timing.h: timing kernels from the host with CUDA events (on the CPU
// target, the CPU runtime's events measure host time the same way).
//
//   TimerOption{warmup, repeat, sync}          Croqtile's timing options
//   timing(f, opt, args...)                    average milliseconds of f(args...)
//   gpu_timer                                  start()/stop()/elapsed_ms() on a stream
//   time_ms(launch, iterations, warmup, s)     average milliseconds per launch()
//   time_round_robin(launches, rounds)         per launch, the milliseconds of each of its runs
//                                              when the launches take turns
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>


#include "croq/host.h"

namespace croq {

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------

// Elapsed GPU time between start() and stop() on one stream, via CUDA events.
class gpu_timer {
 public:
  explicit gpu_timer(cudaStream_t stream = nullptr) : stream_(stream) {
    CROQ_CUDA_CHECK(cudaEventCreate(&begin_));
    CROQ_CUDA_CHECK(cudaEventCreate(&end_));
  }
  ~gpu_timer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  gpu_timer(const gpu_timer&) = delete;
  gpu_timer& operator=(const gpu_timer&) = delete;

  void start() { CROQ_CUDA_CHECK(cudaEventRecord(begin_, stream_)); }
  void stop() { CROQ_CUDA_CHECK(cudaEventRecord(end_, stream_)); }
  // Milliseconds between the two events; waits for the stop event.
  float elapsed_ms() const {
    CROQ_CUDA_CHECK(cudaEventSynchronize(end_));
    float ms = 0.0f;
    CROQ_CUDA_CHECK(cudaEventElapsedTime(&ms, begin_, end_));
    return ms;
  }

 private:
  cudaEvent_t begin_{};
  cudaEvent_t end_{};
  cudaStream_t stream_;
};

// Average milliseconds per call of `launch` (which enqueues work on `stream`)
// over `iterations` calls, after `warmup` untimed calls.
template <typename F>
float time_ms(F&& launch, int iterations = 10, int warmup = 2, cudaStream_t stream = nullptr) {
  for (int i = 0; i < warmup; ++i) launch();
  gpu_timer timer(stream);
  timer.start();
  for (int i = 0; i < iterations; ++i) launch();
  timer.stop();
  return timer.elapsed_ms() / static_cast<float>(iterations > 0 ? iterations : 1);
}

// Times several launches that take turns: `rounds` rounds, each of which
// runs every launch once between its own pair of CUDA events, all enqueued
// back to back on the default stream. Every launch is then timed in the same
// mix of load and at the same clocks on average; timed one after the other,
// the first would run before the GPU reaches its power limit and the later
// ones after it. A launch returns its launch error; an empty one is skipped
// (its result is empty). Returns, per launch, the milliseconds of each round.
inline std::vector<std::vector<float>> time_round_robin(const std::vector<std::function<cudaError_t()>>& launches,
                                                        int rounds) {
  std::vector<std::vector<std::pair<cudaEvent_t, cudaEvent_t>>> marks(launches.size());
  for (std::size_t j = 0; j < launches.size(); ++j) {
    if (!launches[j]) continue;
    marks[j].resize(static_cast<std::size_t>(rounds > 0 ? rounds : 0));
    for (auto& [start, stop] : marks[j]) {
      CROQ_CUDA_CHECK(cudaEventCreate(&start));
      CROQ_CUDA_CHECK(cudaEventCreate(&stop));
    }
  }
  for (int i = 0; i < rounds; ++i) {
    for (std::size_t j = 0; j < launches.size(); ++j) {
      if (!launches[j]) continue;
      CROQ_CUDA_CHECK(cudaEventRecord(marks[j][static_cast<std::size_t>(i)].first));
      CROQ_CUDA_CHECK(launches[j]());
      CROQ_CUDA_CHECK(cudaEventRecord(marks[j][static_cast<std::size_t>(i)].second));
    }
  }
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::vector<float>> times(launches.size());
  for (std::size_t j = 0; j < launches.size(); ++j) {
    for (auto& [start, stop] : marks[j]) {
      float ms = 0.0f;
      CROQ_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      times[j].push_back(ms);
      CROQ_CUDA_CHECK(cudaEventDestroy(start));
      CROQ_CUDA_CHECK(cudaEventDestroy(stop));
    }
  }
  return times;
}

// Croqtile's timing options: `warmup` untimed calls, then `repeat` timed ones;
// with `sync`, the device is synchronized between the two.
struct TimerOption {
  int warmup = 10;
  int repeat = 100;
  bool sync = true;
};

// Calls f(args...) opt.warmup times, then opt.repeat times between two CUDA
// events, and returns the average milliseconds per call (Croqtile's
// choreo::timing). Negative counts are taken as 0 warmups and 1 repeat.
template <typename F, typename... Args>
double timing(F&& f, const TimerOption& opt, Args&&... args) {
  const int warmup = opt.warmup > 0 ? opt.warmup : 0;
  const int repeat = opt.repeat > 1 ? opt.repeat : 1;
  for (int i = 0; i < warmup; ++i) f(args...);
  if (opt.sync) CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  gpu_timer timer;
  timer.start();
  for (int i = 0; i < repeat; ++i) f(args...);
  timer.stop();
  return static_cast<double>(timer.elapsed_ms()) / static_cast<double>(repeat);
}

}  // namespace croq
