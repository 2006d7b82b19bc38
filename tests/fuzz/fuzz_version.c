/* `nsys --version` output parsing (lua/gpuflame/nsys.lua), plus report-name selection on the result. */
#include "fuzz_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_host_init("local nsys = require('gpuflame.nsys')\n"
                   "return function(s) local v = nsys.parse_version(s)\n"
                   "  if v then nsys.report_name('cuda_gpu_kern_sum', v); assert(v.family) end end");
    fuzz_host_call(data, size);
    return 0;
}
