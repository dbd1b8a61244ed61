sweep "testkit" { x = 1 }
sweep "testkit" { x = 2, fail = true }
error("after two sections")
