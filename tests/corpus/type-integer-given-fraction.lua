-- A fraction in the middle of an integer axis: the call's line is named.
-- expect: runner: $SCRIPT:3: speedup: workers: expected an integer, got 3.5
sweep("speedup", {
  workers = { 1, 2, 3.5, 4 },
})
