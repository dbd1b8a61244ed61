local big = {}
for i = 1, 70 do big[i] = i end
sweep("testkit", { x = big })
