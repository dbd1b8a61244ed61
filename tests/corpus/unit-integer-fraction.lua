-- An integer parameter given a unit that leaves a fraction of the declared unit.
-- expect: runner: $SCRIPT:3: memory: gpu_memory_bytes: '1.5B' is 1.5 bytes, not a whole number
sweep "memory" { gpu_memory_bytes = "1.5B" }
