// What nvcc's own build of a .cu file says about each of its kernels, compiled into a simulator
// build beside the kernels where nvcc was found when the build was configured
// (sim/tools/nvcc_info.cpp writes the table; sim/src/resources.cpp reads it). Each source's
// table is named by one NvccTable in the section histo_nvcc_info, so the simulator finds every
// table of the program without a constructor.
#pragma once

#include <cstdint>

namespace histo_sim {

// Instructions SASS spends per dynamic memory instruction of each kind, and per warp outside
// any loop: the instruction-issue estimate (sim/src/resources.cpp).
enum NvccClass : int { kGlobalLoad, kGlobalStore, kGlobalAtomic, kSharedLoad, kSharedStore,
                       kSharedAtomic, kNvccClasses };

struct NvccKernelInfo {
  const char* mangled;    // the kernel's symbol, anonymous namespaces written _GLOBAL__N_1
  const char* arch;       // "sm_90"
  int64_t registers;      // per thread
  int64_t static_shared;  // bytes
  int64_t sass;           // 1 when the SASS figures below are known (cuobjdump was found)
  double loads_per_round;        // global loads the main load loop issues before it waits
  double instructions_per[kNvccClasses];  // SASS instructions per dynamic memory instruction
  double instructions_per_warp;  // SASS instructions outside loops, once per warp
};

// One sentence for reports: where the program's registers and SASS figures come from, or why
// it has none (sim/src/resources.cpp).
const char* nvcc_status();

// What nvcc made of the atomics one source line calls: the line of the innermost frame of their
// SASS instructions outside nvcc's own headers (nvdisasm's line table; an atomic called from a
// helper is the helper's line). A line is listed when every atomic instruction of the source
// that it calls agrees, in every function.
enum NvccAtomicFlag : int64_t {
  kOneLane = 1,  // nvcc knows the address is the same for the whole warp and makes one update of
                 // the lanes' values: the atomic is predicated on one leader lane (VOTEU.ANY,
                 // UFLO, ISETP.EQ with SR_LANEID)
  kAtom = 2,     // an ATOM instruction (Nsight Compute's op_atom counters), not a RED (op_red)
};
struct NvccAtomicLine {
  const char* file;  // base name: "global_atomics.cu"
  int64_t line;
  int64_t flags;     // NvccAtomicFlag bits, never 0
};

// One source's tables. 32 bytes and 16-aligned, so the section is an array of them whatever the
// compiler's alignment of each object.
struct alignas(16) NvccTable {
  const NvccKernelInfo* begin;
  const NvccKernelInfo* end;
  const NvccAtomicLine* atomics_begin;
  const NvccAtomicLine* atomics_end;
};

// The flags of the atomics called at `file`:`line` (any path; its base name is compared) over
// every source's table, 0 where none says (sim/src/resources.cpp).
int64_t nvcc_atomic_flags(const char* file, int line);

}  // namespace histo_sim
