/* JSON decode (server responses, policies' JSON): core.json.decode and a re-encode of the result. */
#include "fuzz_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_host_init("local json = require('gpuflame.core').json\n"
                   "return function(s) local v = json.decode(s, 'fuzz.json'); json.encode(v, {pretty = true}) end");
    fuzz_host_call(data, size);
    return 0;
}
