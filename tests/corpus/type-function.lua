-- A function where a value belongs (a call without its parentheses).
-- expect: runner: $SCRIPT:3: speedup: jitter: expected a number, string or boolean, got a function
sweep "speedup" { jitter = math.sqrt }
