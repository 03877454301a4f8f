# lab06's overflow check never adding its spill bins to the output: every 128 counts a counter
# spilled are lost.
set(LAB lab06)
set(FIND [=[    if constexpr (Policy::kSpills) count += s_spill[tid * kCountersPerWord + byte];]=])
set(REPLACE "")
set(TESTS "histogram_check survives inputs built to overflow an 8-bit counter")
set(EXPECT "lumps of 128" "never added to the output")
set(FORBID "use an atomic" "race")
