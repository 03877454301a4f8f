# lab01's kernel walking its segment with an int index: a segment that starts past 2^31 starts
# at a negative index, which compares as a huge size_t, so its loop never runs and those bytes
# are never counted. Only the [large] tests have inputs that long.
set(LAB lab01)
set(LARGE ON)
set(FIND [=[  for (size_t i = seg.begin; i < seg.end; ++i) {]=])
set(REPLACE [=[  for (int i = seg.begin; i < seg.end; ++i) {]=])
set(TESTS "histogram_segmented counts inputs past 2^31 bytes")
set(EXPECT "n is past 2\\^31")
set(GPU_EXPECT "n is past 2\\^31")
