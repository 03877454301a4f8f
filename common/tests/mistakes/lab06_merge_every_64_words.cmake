# lab06 periodic merge every 64 words instead of 63 (kWordsPerMerge + 1): 256 bytes of one value
# between two merges drive a counter from 255 to 0.
set(LAB lab06)
set(FIND [=[  const size_t per_round = Policy::kMergesPeriodically ? kWordsPerMerge : share;]=])
set(REPLACE [=[  const size_t per_round = Policy::kMergesPeriodically ? kWordsPerMerge + 1 : share;]=])
set(TESTS "histogram_merge survives inputs built to overflow an 8-bit counter")
set(EXPECT "packed counter passed 255, wrapped to 0" "the merges come too far apart")
set(FORBID "use an atomic" "race")
