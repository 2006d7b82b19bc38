-- Kernel-name normalisers for `gpuflame diff` (gpuflame.kernelnames) and two-column folded recognition.
local t = dofile((os.getenv("GF_TOP") or ".") .. "/tests/lib/t.lua")
local kn = require("gpuflame.kernelnames")
local inputs = require("gpuflame.inputs")

local cases = {
  { "strip_template_args", "void k<float, 128>(float*)", "void k<>(float*)" },
  { "strip_template_args", "void a::b<c<int>, d<e<f>>>::g<1>(int)", "void a::b<>::g<>(int)" },
  { "strip_template_args", "bool operator<(const A&, const B&)", "bool operator<(const A&, const B&)" },
  { "strip_template_args", "S::operator<<<int>(T)", "S::operator<<<>(T)" },
  { "strip_template_args", "unbalanced<int", "unbalanced<int" },
  { "strip_template_args", "plain", "plain" },
  { "strip_numeric_suffix", "fusion_12", "fusion" },
  { "strip_numeric_suffix", "triton_poi_fused_add_0", "triton_poi_fused_add" },
  { "strip_numeric_suffix", "kernel_3(float*, int_2)", "kernel(float*, int_2)" },
  { "strip_numeric_suffix", "fused_1_2", "fused" },
  { "strip_numeric_suffix", "_12", "_12" },
  { "strip_anonymous_namespace", "void (anonymous namespace)::softmax<float>(float*)", "void softmax<float>(float*)" },
  { "strip_anonymous_namespace", "`anonymous namespace'::k", "k" },
  { "strip_arguments", "void k<int>(float*, int)", "void k<int>" },
  { "strip_arguments", "(weird)", "(weird)" },
  { "standard", "void (anonymous namespace)::fusion_7<float, 4>(float*)", "void fusion<>(float*)" },
  { "standard", "ampere_sgemm_128x64_tn", "ampere_sgemm_128x64_tn" },
}
for _, c in ipairs(cases) do
  t.eq(string.format("%s(%q)", c[1], c[2]), c[3], kn[c[1]](c[2]))
end

t.eq("two columns: gpuflame's metadata line says so", true,
  inputs.is_two_column({ '# {"format":"difffolded"}', "a;b 1 2" }))
t.eq("gpuflame's one-column metadata: one column even if lines end in two numbers", false,
  inputs.is_two_column({ '# {"generator":"gpuflame","unit_ns":1000}', "a;b 1 2" }))
t.eq("other metadata: the lines decide", true, inputs.is_two_column({ '# {"unit_ns":1000}', "a;b 1 2" }))
t.eq("no metadata: every line ends in two counts", true, inputs.is_two_column({ "a;b 1 2", "c 0 5.5" }))
t.eq("no metadata: one line with a single count makes it one column", false, inputs.is_two_column({ "a;b 1 2", "c 5" }))

return t.done()
