// host_api_test.cpp: checks the host half of the runtime (croq/host.h,
// croq/types.h) without a GPU: shapes and indexing, views and their factory
// spellings, fills, random seeds, equality, conversions, and that failed
// assertions abort with file:line. Builds with g++ (plus the CUDA include
// directory) or nvcc; prints PASS and exits 0, or lists failures and exits 1.
//
//   host_api_test           run the checks
//   host_api_test --seed    print the random seed in use and exit (the test
//                           script runs this twice to see that seeds differ)
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "choreo.h"
#include "croq/croq.h"

namespace {

int failures = 0;

void check(bool ok, const char* what, int line) {
  if (!ok) {
    std::printf("FAIL line %d: %s\n", line, what);
    ++failures;
  }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

// Runs `body` in a child process; true when the child dies of SIGABRT and its
// stderr contains `expected`.
template <typename F>
bool aborts_with(F&& body, const char* expected) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return false;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[0]);
    dup2(pipe_fds[1], STDERR_FILENO);
    body();
    std::_Exit(0);
  }
  close(pipe_fds[1]);
  std::string err;
  char buf[512];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0) err.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const bool aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  if (!aborted || err.find(expected) == std::string::npos) {
    std::printf("  child stderr: %s\n", err.c_str());
    return false;
  }
  return true;
}

void test_shape_and_indexing() {
  auto d = croq::make_spandata<croq::s32>(4, 8);
  static_assert(std::is_same_v<decltype(d), croq::spanned_data<croq::s32, 2>>);
  CHECK(d.rank() == 2);
  CHECK(d.shape()[0] == 4 && d.shape()[1] == 8);
  CHECK(d.element_count() == 32);
  CHECK(d.bytes() == 32 * sizeof(croq::s32));
  CHECK(d.strides()[0] == 8 && d.strides()[1] == 1);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) d[i][j] = i * 100 + j;
  bool row_major = true;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) row_major = row_major && d.data()[i * 8 + j] == i * 100 + j;
  CHECK(row_major);
  CHECK(d.at(3, 7) == 307);
  d.at(2, 5) = -1;
  CHECK(d[2][5] == -1);

  const auto& cd = d;
  static_assert(std::is_same_v<decltype(cd[0][0]), const croq::s32&>);
  CHECK(cd[3][6] == 306);

  auto t = croq::make_spandata<float>(2, 3, 4);
  CHECK(t.rank() == 3 && t.element_count() == 24);
  t.fill(0.0f);
  t[1][2][3] = 5.0f;
  CHECK(t.data()[1 * 12 + 2 * 4 + 3] == 5.0f);
  CHECK(t.at(1, 2, 3) == 5.0f);

  auto v1 = croq::make_spandata<croq::u8>(7);
  CHECK(v1.rank() == 1 && v1.shape()[0] == 7 && v1.bytes() == 7);
  v1[6] = 200;
  CHECK(v1.data()[6] == 200);

  // Dimensions of any integer type.
  const std::size_t rows = 3;
  const long cols = 5;
  auto mixed = croq::make_spandata<double>(rows, cols);
  CHECK(mixed.shape()[0] == 3 && mixed.shape()[1] == 5);
  auto same_shape = croq::make_spandata<croq::f16>(mixed.shape());
  CHECK(same_shape.shape() == mixed.shape());

  auto moved = std::move(d);
  CHECK(moved[3][7] == 307 && d.data() == nullptr && d.element_count() == 0);
}

void test_views() {
  float storage[6 * 4] = {};
  const int M = 6, K = 4;
  auto v = croq::make_spanview<2>(storage, {M, K});
  static_assert(std::is_same_v<decltype(v), croq::spanned_view<float, 2>>);
  CHECK(v.data() == storage && v.rank() == 2 && v.shape()[0] == 6 && v.shape()[1] == 4);
  CHECK(v.element_count() == 24 && v.bytes() == sizeof(storage));
  v[5][3] = 9.0f;
  CHECK(storage[23] == 9.0f);

  auto v_type_first = croq::make_spanview<float, 2>(storage, {M, K});
  auto v_rank_first = croq::make_spanview<2, float>(storage, {M, K});
  auto v_old = croq::make_spanned<2>(storage, {M, K});
  auto v_old_typed = croq::make_spanned<float, 2>(storage, {M, K});
  CHECK(v_type_first[5][3] == 9.0f && v_rank_first[5][3] == 9.0f && v_old[5][3] == 9.0f &&
        v_old_typed[5][3] == 9.0f);
  auto v3 = croq::make_spanview<3>(storage, {2, 3, 4});
  CHECK(v3[1][2][3] == 9.0f && v3.shape()[1] == 3);

  const croq::spanned_view<const float, 2> cv = v;
  CHECK(cv[5][3] == 9.0f && cv.data() == storage);

  auto owned = croq::make_spandata<croq::s16>(3, 3);
  owned.fill(4);
  auto ov = owned.view();
  CHECK(ov.data() == owned.data() && ov.shape() == owned.shape());
  ov[1][1] = 11;
  CHECK(owned[1][1] == 11);
  const auto& cowned = owned;
  auto cov = cowned.view();
  static_assert(std::is_same_v<decltype(cov), croq::spanned_view<const croq::s16, 2>>);
  CHECK(cov[1][1] == 11);
  croq::spanned_view<croq::s16, 2> implicit = owned;
  CHECK(implicit.data() == owned.data());

  auto chv = choreo::make_spanview<1>(storage, {24});
  CHECK(chv[23] == 9.0f);
}

void test_fill_and_equality() {
  auto h = croq::make_spandata<croq::f16>(4, 4);
  h.fill(0.5f);
  CHECK(croq::to_f32(h[3][3]) == 0.5f);
  h.fill(croq::utils::from_f32<croq::f16>(-2.0f));
  CHECK(croq::to_f32(h[0][0]) == -2.0f);

  auto a = croq::make_spandata<croq::s32>(8, 8);
  a.fill_random(-10, 10);
  auto b = a.clone();
  CHECK(a == b && !(a != b));
  b[7][7] = a[7][7] + 1;
  CHECK(a != b);
  auto c = croq::make_spandata<croq::s32>(4, 16);
  CHECK(a != c);  // same element count, different shape

  auto f = croq::make_spandata<float>(2, 2);
  f.fill(std::nanf(""));
  CHECK(f != f.clone());  // NaN compares unequal
}

template <typename T>
void check_random_range(double lo, double hi, bool expect_ends) {
  auto d = croq::make_spandata<T>(64, 64);
  d.fill_random(lo, hi);
  double min = 1e300, max = -1e300;
  for (std::size_t i = 0; i < d.element_count(); ++i) {
    const double x = static_cast<double>(croq::to_f32(d.data()[i]));
    min = x < min ? x : min;
    max = x > max ? x : max;
  }
  std::string what = std::string("fill_random range for ") + croq::type_name<T>();
  check(min >= lo && max <= hi, what.c_str(), __LINE__);
  check(min < max, (what + " is not constant").c_str(), __LINE__);
  if (expect_ends) check(min == lo && max == hi, (what + " reaches both ends").c_str(), __LINE__);
  auto again = croq::make_spandata<T>(64, 64);
  again.fill_random(lo, hi);
  check(!(again == d), (what + ": two fills differ").c_str(), __LINE__);
}

void test_random() {
  check_random_range<croq::s32>(-10, 10, true);
  check_random_range<croq::u8>(0, 255, true);
  check_random_range<croq::s64>(-3, 3, true);
  check_random_range<float>(-1.0, 1.0, false);
  check_random_range<double>(0.25, 0.75, false);
  check_random_range<croq::f16>(-1.0, 1.0, false);
  check_random_range<croq::bf16>(-4.0, 4.0, false);
  check_random_range<croq::f8_e4m3>(-2.0, 2.0, false);

  // Reseeding reproduces a sequence.
  croq::set_random_seed(42);
  auto x = croq::make_spandata<float>(100);
  x.fill_random(-1.0f, 1.0f);
  croq::set_random_seed(42);
  auto y = croq::make_spandata<float>(100);
  y.fill_random(-1.0f, 1.0f);
  CHECK(x == y && croq::random_seed() == 42);
}

void test_types() {
  CHECK(std::string(croq::type_name<croq::f16>()) == "f16");
  CHECK(std::string(croq::type_name<croq::bf16>()) == "bf16");
  CHECK(std::string(croq::type_name<croq::s32>()) == "s32");
  CHECK(std::string(croq::type_name<croq::u64>()) == "u64");
  CHECK(std::string(croq::type_name<croq::f8_e5m2>()) == "f8_e5m2");
  CHECK(croq::to_f32(croq::utils::from_f32<croq::f16>(1.5f)) == 1.5f);
  CHECK(croq::to_f32(croq::utils::from_f32<croq::bf16>(-3.0f)) == -3.0f);
  CHECK(croq::to_f32(croq::utils::from_f32<croq::f8_e4m3>(1.5f)) == 1.5f);
  CHECK(croq::to_f32(croq::utils::from_f32<croq::f8_e5m2>(-0.5f)) == -0.5f);
  CHECK(croq::utils::from_f32<croq::s32>(-2.7f) == -2);
  CHECK(croq::to_f32(7) == 7.0f);
  CHECK(croq::to_f32(2.5) == 2.5f);
  CHECK(sizeof(croq::f16) == 2 && sizeof(croq::bf16) == 2 && sizeof(croq::f8_e4m3) == 1);
  CHECK((std::is_same_v<choreo::f32, float> && std::is_same_v<choreo::s8, std::int8_t>));
  CHECK(croq::is_floating_v<croq::bf16> && !croq::is_floating_v<croq::s16>);
}

void test_assertions() {
  CHECK(aborts_with([] { croq::croq_assert(false, "the answer is 42"); },
                    "host_api_test.cpp:" /* the caller's file */));
  CHECK(aborts_with([] { croq::croq_assert(1 + 1 == 3, "the answer is 42"); },
                    "assertion failed: the answer is 42"));
  CHECK(aborts_with([] { choreo::choreo_assert(false, std::string("dimension 'K' is not consistent.")); },
                    "dimension 'K' is not consistent."));
  CHECK(aborts_with([] { croq::abend_true(true, "bad state"); }, "abnormal end: bad state"));
  CHECK(aborts_with([] { (void)croq::make_spandata<float>(4, 0); }, "dimension 1 is 0"));
  CHECK(aborts_with(
      [] {
        (void)croq::make_spanview<2>(static_cast<float*>(nullptr), {-1, 2});
      },
      "dimension 0 is -1"));
#if CROQ_BOUNDS_CHECK
  CHECK(aborts_with(
      [] {
        auto d = croq::make_spandata<int>(2, 3);
        d[1][3] = 0;
      },
      "index 3 is out of range for a dimension of extent 3"));
#endif
  // The passing forms do not abort.
  croq::croq_assert(true, "never");
  croq::abend_true(false, "never");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--seed") == 0) {
    std::printf("%llu\n", static_cast<unsigned long long>(croq::random_seed()));
    return 0;
  }
  // Without CROQ_SEED, two fresh seeds differ; with it, the generator starts from it.
  unsetenv("CROQ_SEED");
  CHECK(croq::detail::initial_seed() != croq::detail::initial_seed());
  setenv("CROQ_SEED", "0x1234", 1);
  CHECK(croq::random_seed() == 0x1234);  // first use of the generator reads CROQ_SEED

  test_shape_and_indexing();
  test_views();
  test_fill_and_equality();
  test_random();
  test_types();
  test_assertions();

  if (failures != 0) {
    std::printf("FAIL: %d host API checks failed\n", failures);
    return 1;
  }
  std::printf("PASS: host API\n");
  return 0;
}
