-- report.find blames its caller's line when no row matches.
-- expect: runner: $SCRIPT:5: report.find: no row with workers=3
local report = require "report"
local rows = { { workers = 1 }, { workers = 2 } }
local row = report.find(rows, { workers = 3 })
