-- Arithmetic on a word.
-- expect: runner: $SCRIPT:3: attempt to mul a 'string' with a 'number'
local workers = "eight" * 2
