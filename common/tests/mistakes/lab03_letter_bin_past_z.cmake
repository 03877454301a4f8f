# lab03 letter_bin accepting position 26 (<= 26 instead of < 26): '{', the byte after 'z',
# is counted in the last letter bin.
set(LAB lab03)
set(FIND [=[  return (position >= 0 && position < 26) ? position / kLettersPerBin : -1;]=])
set(REPLACE [=[  return (position >= 0 && position <= 26) ? position / kLettersPerBin : -1;]=])
set(TESTS "letter_bin maps a-z to seven bins of four letters and every other byte to -1"
          "letter_histogram matches the CPU letter reference on every dataset")
set(EXPECT "letter_bin\\(byte\\) == expected" "'\\{'")
set(FORBID "race" "head/tail" "head or tail")
