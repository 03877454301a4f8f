# lab04's run-aggregation kernel that still adds every byte of a vector on its own.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab04)
set(FIND [=[  const uint32_t heads = run_heads(v);
  // Visit the set bits of heads from the lowest up, clearing each one as it is handled.
  for (uint32_t rest = heads; rest != 0; rest &= rest - 1) {
    const int k = lowest_set_bit(rest);
    atomicAdd(&s_bins[vector_byte(v, k)], run_length(heads, k));
  }]=])
set(REPLACE [=[  for (int k = 0; k < int(kVectorBytes); ++k) atomicAdd(&s_bins[vector_byte(v, k)], 1u);]=])
set(TESTS "cost: histogram_shared_runs adds once per run on degenerate data")
set(EXPECT "shared atomic instructions per 32 input bytes = 1")
set(PASSES "histogram_shared_runs matches the CPU reference on every dataset")
