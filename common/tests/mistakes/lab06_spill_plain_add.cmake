# lab06's overflow check spilling 128 counts into the shared spill bins with a plain += instead
# of atomicAdd: threads of a block spill into the same bins. In the simulator threads take
# turns and no count is lost: the hazard check names the race.
# Needs the access trace (a Clang build): the counters or the hazard checks see it.
set(NEEDS_TRACE ON)
set(LAB lab06)
set(FIND [=[    if (spill.spilled) atomicAdd(&s_spill[value], kSpillCount);]=])
set(REPLACE [=[    if (spill.spilled) s_spill[value] += kSpillCount;]=])
set(TESTS "histogram_check survives inputs built to overflow an 8-bit counter")
set(EXPECT "shared-memory race" "plain access where an atomic is needed")
set(FORBID "no race can lose")
