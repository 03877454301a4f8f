# lab04's 16-byte kernel reading each vector as four 4-byte words: the same bytes, four times
# the load requests.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab04)
set(FIND [=[    for (int u = 0; u < kVectorsPerThread; ++u) v[u] = __ldg(body + i + u * stride);]=])
set(REPLACE [=[    for (int u = 0; u < kVectorsPerThread; ++u) {
      const uint32_t* words = reinterpret_cast<const uint32_t*>(body + i + u * stride);
      v[u] = make_uint4(__ldg(words), __ldg(words + 1), __ldg(words + 2), __ldg(words + 3));
    }]=])
set(TESTS "cost: histogram_shared_vec16 reads 16 bytes per lane and load")
set(EXPECT "global load requests per 512 input bytes = [2-4]")
set(PASSES "histogram_shared_vec16 matches the CPU reference on every dataset"
           "histogram_shared_runs matches the CPU reference on every dataset")
