// Splitting a loop across the client's thread pool. The calling thread takes
// part and never waits for work nobody has started, so a ParallelFor inside
// a task already running on the pool cannot deadlock.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_PARALLEL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_PARALLEL_HPP_

#include <cstdint>
#include <functional>

#include "thread_pool.hpp"

namespace berth::cpu {

// Calls `body(begin, end)` on disjoint ranges covering [0, total), each at
// least `min_chunk` long (except the last), possibly concurrently. Returns
// when every range is done. `pool` may be NULL (runs inline).
void ParallelFor(ThreadPool* pool, int64_t total, int64_t min_chunk,
                 const std::function<void(int64_t begin, int64_t end)>& body);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_PARALLEL_HPP_
