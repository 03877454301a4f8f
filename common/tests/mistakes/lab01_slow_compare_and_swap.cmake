# lab01's segmented kernel counting with a compare-and-swap loop, as with std::atomic's
# compare_exchange on a CPU: read the bin, then atomicCAS it from that value to one more, again
# if another thread got there first. The bins are right, but every byte adds a global load of
# its bin to the byte's own load (and, on a GPU under contention, retries of the atomic).
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab01)
set(FIND [=[    atomicAdd(&d_bins[d_in[i]], 1u);]=])
set(REPLACE [=[    uint32_t* bin = &d_bins[d_in[i]];
    uint32_t seen = *bin, before;
    do {
      before = seen;
      seen = atomicCAS(bin, before, before + 1);
    } while (seen != before);]=])
set(TESTS "cost: histogram_segmented reads each byte once and adds it with one atomic")
set(EXPECT "global load requests per 32 input bytes = 2 on" "a loop around atomicCAS")
set(FORBID "global atomic requests per 32 input bytes = [0-9.]+ on")
set(PASSES "histogram_segmented matches the CPU reference on every dataset"
           "histogram_segmented runs in order on the non-blocking stream it is given")
