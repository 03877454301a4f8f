# lab03's histogram64 adding to the low 32 bits of each 64-bit bin (atomicAdd on unsigned int):
# right until a bin passes 2^32 - 1, when it wraps to 0 and the carry is lost. Only the [large]
# test has a bin that full (bin 200 ends at 2^32 + 9).
set(LAB lab03)
set(LARGE ON)
set(FIND [=[    atomicAdd(&d_bins[d_in[i]], 1ull);]=])
set(REPLACE [=[    atomicAdd(reinterpret_cast<unsigned*>(&d_bins[d_in[i]]), 1u);]=])
set(TESTS "histogram64 counts 2^32 + 2^20 + 3 bytes with one bin past 2^32")
set(EXPECT "9 there means 32-bit counters")
set(GPU_EXPECT "9 there means 32-bit counters")
