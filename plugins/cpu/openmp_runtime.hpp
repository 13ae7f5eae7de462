// The OpenMP runtime the dot_general kernels use through Eigen.
#ifndef BERTH_PLUGINS_CPU_OPENMP_RUNTIME_HPP_
#define BERTH_PLUGINS_CPU_OPENMP_RUNTIME_HPP_

namespace berth::cpu {

// Keeps the OpenMP runtime library (libgomp) loaded for the life of the
// process, even after the host unloads this plugin. libgomp does not support
// being unloaded: its worker threads outlive each parallel region and would
// run unmapped code, and the state it allocates at load is never freed.
// Idempotent; a no-op when the plugin is built without OpenMP.
void PinOpenMpRuntime();

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_OPENMP_RUNTIME_HPP_
