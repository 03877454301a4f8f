# lab06's capstone without the single vector after its two-at-a-time loop: when a thread's
# share is odd, its last 16 bytes are never counted.
set(LAB lab06)
set(FIND [=[  if (v < split.units) add_vector_to_copy(s_copies, lane, __ldg(&d_vectors[v]));]=])
set(REPLACE "")
set(TESTS "histogram_capstone matches the CPU reference on every dataset")
set(EXPECT "elements never visited")
set(FORBID "use an atomic" "race" "8-bit")
