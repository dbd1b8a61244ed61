-- A testkit sweep where half the points fail: failed points are stored with
-- their message and the script goes on (exit status 1). Also the failing
-- sweep `make test-valgrind` runs under memcheck.
local rows = sweep("testkit", {
  x     = {1, 2.5, -3},
  fail  = {false, true},
  rows  = {0, 3},
  label = {"a", "c"},
}, { title = "testkit: failing points", columns = {"x", "fail", "rows", "y", "tag"} })
assert(#rows == 18, "expected 18 rows, got " .. #rows)
for _, r in ipairs(rows) do
  assert(r.not_a_number ~= r.not_a_number and r.pos_inf == math.huge)
end
printf("%d rows, first tag %s\n", #rows, rows[1].tag)
