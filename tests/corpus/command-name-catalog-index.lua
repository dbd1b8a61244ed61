-- A command named like a catalog index (sweep_list, made by a migration
-- step) used to pass validation and fail at CREATE TABLE after the sweep
-- row was written; it is refused before anything is written.
-- expect: runner: $SCRIPT:5: command 'sweep_list': name 'sweep_list' is reserved by runner's catalog
command "sweep_list" { argv = { "true" }, columns = { { name = "v", type = "integer" } } }
sweep("sweep_list", {})
