# lab04's shared kernel whose counting loop adds to the global bins: the shared bins stay zero
# and the merge adds nothing, so the bins are right, but every byte is a global atomic again.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab04)
set(FIND [=[    atomicAdd(&s_bins[d_in[i]], 1u);]=])
set(REPLACE [=[    atomicAdd(&d_bins[d_in[i]], 1u);]=])
set(TESTS "cost: histogram_shared sends no global atomic per input byte")
set(EXPECT "global atomic requests per 32 input bytes = 1")
set(PASSES "histogram_shared matches the CPU reference on every dataset")
