// BM_Matmul's baseline: Eigen's GEMM (row-major f32, OpenMP threads)
// compiled for one ISA level, once per variant of the cpu plugin's kernels
// (bench/meson.build, localized like the plugin's variants), so that the
// cpu plugin is compared with Eigen at the level it runs.
#include <Eigen/Core>
#include <cstdint>

extern "C" void BERTH_BENCH_EIGEN_ENTRY(const float* a, const float* b, float* c, int64_t n,
                                        int threads) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::setNbThreads(threads);
  Eigen::Map<const Matrix> am(a, n, n), bm(b, n, n);
  Eigen::Map<Matrix> cm(c, n, n);
  cm.noalias() = am * bm;
}
