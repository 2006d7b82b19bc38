/* The MCP server's input (gpuflame mcp): the bytes as its stdin, cut into lines by the line reader
 * (core/linein.c, a 4 KiB cap here) and each line handled by gpuflame.mcp.server as one message, with no
 * roots (every file refused). A Lua error escaping the server, or a reply that is not one JSON value, ends
 * the process (the fuzzer reports it): hostile input must only ever get JSON-RPC errors. */
#include <stdio.h>

#include "fuzz_host.h"
#include "linein.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_host_init(
        "local core = require('gpuflame.core')\n"
        "local ctx = require('gpuflame.cli').context()\n"
        "local function write(line)\n"
        "  local ok, v = pcall(core.json.decode, line, 'reply')\n"
        "  if not ok or type(v) ~= 'table' or v.jsonrpc ~= '2.0' or line:find('\\n') then\n"
        "    io.stderr:write('fuzz_mcp: not one JSON-RPC line: ', line, '\\n'); os.exit(3)\n"
        "  end\n"
        "end\n"
        "local s = require('gpuflame.mcp.server').new({ roots = {}, write = write }, ctx)\n"
        "return function(line)\n"
        "  local ok, e = pcall(s.route, s, line, false)\n"
        "  if not ok then io.stderr:write('fuzz_mcp: error escaped: ', tostring(e and e.msg or e), '\\n'); os.exit(4) end\n"
        "end");
    FILE *f = tmpfile();
    if (!f)
        return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fflush(f);
    rewind(f);
    gf_err err = {0};
    gf_linein *r = gf_linein_new(fileno(f), 4096, &err);
    const char *line;
    size_t len;
    int rc;
    while (r && (rc = gf_linein_next(r, 0, &line, &len, &err)) != GF_LINE_EOF && rc != GF_LINE_ERROR) {
        if (rc == GF_LINE_OK)
            fuzz_host_call((const uint8_t *)line, len);
        else if (rc == GF_LINE_TIMEOUT)
            break;
    }
    gf_linein_free(r);
    fclose(f);
    return 0;
}
