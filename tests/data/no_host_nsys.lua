-- For tests that need "no nsys on this host" on a machine that has one: discovery looks only at
-- --nsys and NSYS_PATH (the PATH and install-place sources are left out).
return { extends = "default", discover = { order = { "explicit", "env" } } }
