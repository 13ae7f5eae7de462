/* GCC 12.2 (Debian 12.2.0-14) miscompiles this at -O3 on x86-64: the loop
 * vectorizer turns the fold into one that keeps only the last step of eight
 * elements. Sum(1..24) returns -92 (164 - 256: 17 + ... + 24) instead of 44.
 * The code has no undefined or implementation-defined behaviour; it is the
 * shape of the eight-accumulator integer fold reduce_loops.cc used to have
 * (see the comment there).
 *
 *   gcc -O3 gcc12_lane_fold_miscompile.c && ./a.out; echo $?   -> 1 (wrong)
 *   gcc -O2 ... / -O3 -fno-tree-loop-vectorize / clang -O3     -> 0
 *
 * Not built by the project: a record of the compiler defect and of why the
 * integer reductions are written as plain loops. */
typedef signed char T;

__attribute__((noinline)) T Sum(const T* p, long n, long rows) {
  T acc = 0;
  for (long r = 0; r < rows; ++r) {
    T lane[8];
    for (int j = 0; j < 8; ++j) lane[j] = p[j];
    for (long i = 8; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) lane[j] = (T)(lane[j] + p[i + j]);
    T part = 0;
    for (int j = 0; j < 8; ++j) part = (T)(part + lane[j]);
    acc = (T)(acc + part);
  }
  return acc;
}

int main(void) {
  T buf[24];
  for (int i = 0; i < 24; ++i) buf[i] = (T)(i + 1);
  return Sum(buf, 24, 1) == 44 ? 0 : 1;
}
