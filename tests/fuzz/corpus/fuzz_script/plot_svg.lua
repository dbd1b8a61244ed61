local rows = sweep("testkit", { x = {1, 2, 3}, label = {"a", "b"} }, { print = false })
local path, err = plot(rows, { x = "x", y = "y", by = "label", output = "plots/fuzz.svg",
                              title = "y vs x", logy = true, units = { y = "s" } })
printf("%s %s\n", tostring(path), tostring(err))
pcall(plot, rows, { x = "x", y = "tag", output = "../escape.svg" })
pcall(plot, {}, { x = "x", y = "y", output = "a.svg" })
