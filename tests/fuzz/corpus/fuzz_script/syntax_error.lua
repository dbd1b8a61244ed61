sweep("testkit", { x = {1, 2 }
