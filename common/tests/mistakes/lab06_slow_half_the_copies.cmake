# lab06's capstone using 16 copies for its 32 lanes (lane % 16): the same counts (copies 16 to
# 31 stay zero), but lanes l and l + 16 share a bank.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab06)
set(FIND [=[  uint32_t* s_copy = s_copies + lane;]=])
set(REPLACE [=[  uint32_t* s_copy = s_copies + lane % 16;]=])
set(TESTS "cost: the capstone's lane copies take one wavefront per shared atomic")
set(EXPECT "shared atomic wavefronts per instruction = [1-9]")
set(PASSES "histogram_capstone matches the CPU reference on every dataset")
