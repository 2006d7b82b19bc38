-- Test policy: the page's launch-stack flamegraph keeps every (stack, kernel) pair (no folding of thin
-- subtrees), so tests can compare it entry by entry.
return { extends = "default", timeline = { flame_min_fraction = 0 } }
