std = "lua54"
max_line_length = 140
files["tests/lua"] = { globals = {} }
exclude_files = { "tests/node_modules" }
