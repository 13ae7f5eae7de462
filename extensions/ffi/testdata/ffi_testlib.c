/* Plain C functions for the ffi binding's tests and benchmark: no Berth
 * headers, nothing but what a third-party C library would export. Every
 * function counts its calls so a test can tell that a failed check or the
 * PREPARE stage never reached the function. */
#include <stdint.h>

static int64_t calls;

/* How many times any function below has run. */
int64_t ffi_testlib_calls(void) { return calls; }

/* y = alpha * x + y, in place. */
void axpy_f32(int64_t n, float alpha, const float* x, float* y) {
  ++calls;
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i] + y[i];
}

/* out = factor * x. Returns 1 for a negative n and 3 for a factor of 0 (it
 * refuses to scale by zero), else 0. */
int32_t scale_f64(const double* x, double* out, int32_t n, double factor) {
  ++calls;
  if (n < 0) return 1;
  if (factor == 0.0) return 3;
  for (int32_t i = 0; i < n; ++i) out[i] = factor * x[i];
  return 0;
}

/* out[i] = start + i * step. */
void iota_i64(int64_t* out, int32_t n, int64_t start, int64_t step) {
  ++calls;
  for (int32_t i = 0; i < n; ++i) out[i] = start + i * step;
}

/* total[0] = the sum of x. */
void sum_i32(const int32_t* x, int64_t n, int32_t* total) {
  ++calls;
  int32_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  total[0] = sum;
}

/* Enough scalars of each kind that some go on the stack (x86-64 passes six
 * integers and eight floats in registers); out[0] = their weighted sum, where
 * each weight tells a swapped or truncated argument apart. */
void combine_scalars(int32_t a, int64_t b, float c, double d, int32_t e, int64_t f, float g,
                     double h, int32_t i, int64_t j, float k, double l, float m, double n,
                     double* out) {
  ++calls;
  out[0] = a * 1.0 + b * 10.0 + c * 100.0 + d * 1000.0 + e * 1e4 + f * 1e5 + g * 1e6 + h * 1e7 +
           i * 1e8 + j * 1e9 + k * 1e10 + l * 1e11 + m * 1e12 + n * 1e13;
}
