-- error() with a table: Lua has no position to give, only the object's type.
-- expect: runner: (error object is a table value)
error({ code = 1 })
