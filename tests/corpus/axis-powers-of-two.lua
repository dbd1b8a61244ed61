-- powers_of_two from a number that is not one.
-- expect: runner: $SCRIPT:3: powers_of_two(3, 8): both ends must be powers of two, first <= last
sweep "speedup" { workers = powers_of_two(3, 8) }
