-- The real-nsys tier's captures: no CPU context-switch tracing (with it, nsys 2022.4 `profile` here
-- hung intermittently after "Generating ...qdstrm"), short bounds so a hang fails a case quickly.
return { extends = "default", capture = { cpuctxsw = "none", timeout_extra = 60, decided_grace = 10 } }
