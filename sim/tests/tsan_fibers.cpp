// Configure-time probe of the sim-tsan build (sim/CMakeLists.txt): does this compiler's
// ThreadSanitizer see a race between two of 512 fibers after a barrier, the way the simulator
// runs a 512-thread block (each CUDA thread a TSan fiber, __syncthreads a release and an
// acquire)? A runtime with 256 thread slots (LLVM's since version 14, Clang 14's) reuses them
// and orders the fibers that share one: it misses this race; GCC 12's runtime reports it.
// Exits 0: ThreadSanitizer makes it 66 when it reported the race (its report on stderr), its
// default exit code after a report; the probe's own bookkeeping is atomic, so no other race is
// there to report.
#include <sanitizer/tsan_interface.h>
#include <ucontext.h>

#include <cstdlib>

namespace {

constexpr int kFibers = 512;
thread_local unsigned g_shared[kFibers];  // as a __shared__ array is in the simulator
ucontext_t g_main, g_context[kFibers];
void* g_fiber[kFibers];
void* g_main_fiber;
int g_current;  // atomic: the probe's own bookkeeping
char g_barrier, g_start;

void yield(int k) {
  __tsan_switch_to_fiber(g_main_fiber, __tsan_switch_to_fiber_no_sync);
  swapcontext(&g_context[k], &g_main);
}

void body() {
  const int k = __atomic_load_n(&g_current, __ATOMIC_RELAXED);
  __tsan_acquire(&g_start);
  g_shared[k] = 0;  // zeroing, then the barrier
  __tsan_release(&g_barrier);
  yield(k);
  __tsan_acquire(&g_barrier);
  if (k == 2) __atomic_fetch_add(&g_shared[5], 1u, __ATOMIC_RELAXED);  // counting
  if (k == 21) {                                                    // a merge, no barrier
    volatile unsigned v = g_shared[5];
    (void)v;
  }
  yield(k);
}

}  // namespace

int main() {
  g_main_fiber = __tsan_get_current_fiber();
  for (int k = 0; k < kFibers; ++k) {
    g_fiber[k] = __tsan_create_fiber(0);
    getcontext(&g_context[k]);
    g_context[k].uc_stack.ss_size = 1 << 16;
    g_context[k].uc_stack.ss_sp = std::malloc(g_context[k].uc_stack.ss_size);
    makecontext(&g_context[k], body, 0);
  }
  __tsan_release(&g_start);
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < kFibers; ++k) {
      __atomic_store_n(&g_current, k, __ATOMIC_RELAXED);
      __tsan_switch_to_fiber(g_fiber[k], __tsan_switch_to_fiber_no_sync);
      swapcontext(&g_main, &g_context[k]);
    }
  return 0;
}
