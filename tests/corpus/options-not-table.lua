-- options() with a value instead of a table.
-- expect: runner: $SCRIPT:3: options needs a table: options { name = default, ... }
local opt = options(8)
