-- Entry points called by the C host (core/host/host.c): cli(argv), script(path, argv), load_policy(path).
local cli = require("gpuflame.cli")
local main = {}

function main.cli(argv)
  return cli.main(argv)
end

function main.script(path, argv)
  return cli.run_script(path, argv)
end

function main.load_policy(path)
  local policy = require("gpuflame.policy") -- lazily: start-up (lua_requires.allow)
  policy.load_file(path) -- validate now so the caller learns of a bad file at once
  policy.add_file(path)
  return 0
end

return main
