-- A unit runner does not know: the message lists the ones that would do.
-- expect: runner: $SCRIPT:3: speedup: base: '2 fortnights': unknown unit 'fortnights'; s takes ns, us, µs, ms, s, min, h
sweep "speedup" { base = "2 fortnights" }
