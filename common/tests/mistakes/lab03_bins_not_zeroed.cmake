# lab03 histogram64 with its launcher written out by hand: it checks its pointers, but forgets
# the cudaMemsetAsync that histo::prepare_output does, so the kernel counts into whatever the
# output held (the grader's poison). The simulator's initcheck names the cause: atomics on
# output bins that nothing zeroed. Not a race, nor anything in shared memory (lab03 has none).
# Needs the access trace (a Clang build): the hazard checks see the atomics' targets.
set(NEEDS_TRACE ON)
set(LAB lab03)
set(FIND [=[  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(unsigned long long), stream,
                        "lab03 histogram64");]=])
set(REPLACE [=[  if (d_bins == nullptr || (n > 0 && d_in == nullptr))
    throw std::invalid_argument("lab03 histogram64: a null pointer");]=])
set(FIND_2 [=[#include "histo/reference.hpp"]=])
set(REPLACE_2 [=[#include "histo/reference.hpp"

#include <stdexcept>]=])
set(TESTS "histogram64 matches the 64-bit CPU reference on every dataset")
set(EXPECT
  "atomically updates byte [0-9]+ of the [0-9]+-byte buffer cudaMalloc'd at [A-Za-z0-9_.]+:[0-9]+ \\(lab03_global_atomics.cu:[0-9]+\\), which holds the grader's poison"
  "Likely cause: the output bins are not zeroed before the kernel counts into them")
set(FORBID "race" "shared" "head/tail" "__syncthreads")
