-- gpuflame.nvtx_group (issue 40 item 1): the grouping function of policy nvtx.group. The expected texts are
-- written out by hand from PyTorch's getNvtxStr format (name, seq, op_id, sizes, input_op_ids, in that order).
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local ng = require("gpuflame.nvtx_group")
local policy = require("gpuflame.policy")

local g = ng.for_policy(policy.effective())
local cases = {
  { "aten::view, seq = 12, op_id = 314290, sizes = [[2, 3]], input_op_ids = [(1, 0)]", "aten::view" },
  { "aten::mm, op_id = 1529997, sizes = [[4, 1024], [1024, 2048]], input_op_ids = [(1529991,0), (1529993,0)]", "aten::mm" },
  { "aten::mm, op_id = 1515155", "aten::mm" },
  { "TBackward0, seq = 1072", "TBackward0" },
  { "aten::empty, seq = -1", "aten::empty" },
  { "aten::zeros, sizes = [], input_op_ids = [(7, 0)]", "aten::zeros" },
  { "aten::add, seq = 3, op_id = 9, sizes = [[], []]", "aten::add" },
  { "Batch 12", "Batch 12" },
  { "step 3, seq = 4 of 9", "step 3, seq = 4 of 9" }, -- not at the end: not emit_nvtx's suffix
  { "Forward pass", "Forward pass" },
}
for _, c in ipairs(cases) do t.eq("default: " .. c[1], c[2], g(c[1])) end

local h = ng.compile({ { "^layer_%d+/", "layer_N/" }, { "/attention$", "/attn" } })
t.eq("a plain list applies in order", "layer_N/attn", h("layer_12/attention"))
t.eq("memoized result is the same", "layer_N/attn", h("layer_12/attention"))
local e = ng.compile({ { ".*", "" } })
t.eq("a rule that empties a name keeps it raw", "abc", e("abc"))

local sets = ng.compile({ ["50-b"] = { { "x", "y" } }, ["10-a"] = { { "y", "z" } } })
t.eq("named sets apply in the order of their names", "y", sets("x"))

local p = policy.merge(policy.effective(), { nvtx = { group = { ["50-mine"] = { { "^aten::", "torch." } } } } })
t.eq("a fleet's set merges with the default and runs after it", "torch.view",
  ng.for_policy(p)("aten::view, seq = 1, op_id = 2"))
local off = policy.merge(policy.effective(), { nvtx = { group = { ["10-pytorch-emit_nvtx"] = {} } } })
t.eq("an empty set turns a default set off", "aten::view, seq = 1", ng.for_policy(off)("aten::view, seq = 1"))

t.raises("a bad %N in a replacement is an error naming the rule", function()
  ng.compile({ ["20-x"] = { { "(a)", "%2" } } })("a")
end, "nvtx.group.20-x[1]")
t.raises("a rule that is not two strings is an error", function() ng.compile({ { "a" } }) end, "rule 1")

return t.done()
