# lab06's capstone reading each 16-byte vector of its main loop as four 4-byte words.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab06)
set(FIND [=[    const uint4 first = __ldg(&d_vectors[v]);
    const uint4 second = __ldg(&d_vectors[v + stride]);]=])
set(REPLACE [=[    const uint32_t* a = reinterpret_cast<const uint32_t*>(&d_vectors[v]);
    const uint32_t* b = reinterpret_cast<const uint32_t*>(&d_vectors[v + stride]);
    const uint4 first = make_uint4(__ldg(a), __ldg(a + 1), __ldg(a + 2), __ldg(a + 3));
    const uint4 second = make_uint4(__ldg(b), __ldg(b + 1), __ldg(b + 2), __ldg(b + 3));]=])
set(TESTS "cost: the capstone reads the input as 16-byte vectors")
set(EXPECT "global load requests per 512 input bytes = [34]")
set(PASSES "histogram_capstone matches the CPU reference on every dataset")
