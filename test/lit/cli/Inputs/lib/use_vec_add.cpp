// Calls the library of vec_add.co through its generated header: the C++
// wrappers with croq:: spans, and the extern "C" entries with raw pointers.
#include "vec_add.h"

#include <cstdio>

int main() {
  auto a = croq::make_spandata<float>(3, 5);
  auto b = croq::make_spandata<float>(3, 5);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  auto sum = vec_add(a.view(), b.view());
  float c_sum[15];
  croq_vec_add(a.data(), b.data(), c_sum, 3, 5, nullptr);

  float x[4 * 3];
  for (int i = 0; i < 12; ++i) x[i] = float(i);
  croq_scale(x, 0.5f, 2, 3, nullptr);

  int errors = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      float want = a[i][j] + b[i][j];
      if (sum[i][j] != want || c_sum[i * 5 + j] != want) ++errors;
    }
  for (int i = 0; i < 12; ++i)
    if (x[i] != float(i)) ++errors;
  std::printf(errors ? "FAIL: %d\n" : "PASS\n", errors);
  return errors != 0;
}
