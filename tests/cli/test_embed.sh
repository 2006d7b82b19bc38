#!/usr/bin/env bash
# The public C API (core/gpuflame.h): a tiny program linked against lib/libgpuflame.a creates a host,
# adds a search directory, loads a policy, runs a CLI command and a script, and reads errors.
. "$(dirname "$0")/../lib/t.sh"

mkdir -p "$TMP/dir/scripts"
cat >"$TMP/embed.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "gpuflame.h"

int main(int argc, char **argv)
{
    gf_host *h = gf_host_new();
    if (!h) return 10;
    gf_host_add_path(h, argv[1]);
    if (gf_host_load_policy(h, argv[2]) != 0) { printf("policy error: %s\n", gf_host_error(h)); return 11; }
    const char *args[] = {"policy", "show"};
    int rc = gf_host_run_cli(h, 2, args);
    printf("cli rc=%d\n", rc);
    const char *sargs[] = {"x", "y"};
    rc = gf_host_run_script(h, argv[3], 2, sargs);
    printf("script rc=%d\n", rc);
    rc = gf_host_run_script(h, "/nonexistent.lua", 0, NULL);
    printf("missing rc=%d err=%s\n", rc, gf_host_error(h));
    gf_host_load_policy(h, argv[4]);
    printf("bad policy err=%s\n", gf_host_error(h));
    gf_host_free(h);
    (void)argc;
    return 0;
}
C
printf 'return { extends = "default", capture = { duration = 42 } }\n' >"$TMP/p.lua"
printf 'return { capture = { duration = -1 } }\n' >"$TMP/bad.lua"
printf 'local a, b = ...\nprint("script got " .. a .. b)\nreturn 4\n' >"$TMP/s.lua"
if ${CC:-cc} ${GF_CFLAGS:--O2} -I"$TOP/core" -o "$TMP/embed" "$TMP/embed.c" "$GPUFLAME_LIB" ${GF_LDLIBS:-$(pkg-config --libs lua5.4 sqlite3 libcurl libcjson yaml-0.1) -lcsv -ldeflate -lz -lm} 2>"$TMP/cc.log"; then
  ok "a C program compiles and links against libgpuflame.a"
  out=$("$TMP/embed" "$TMP/dir" "$TMP/p.lua" "$TMP/s.lua" "$TMP/bad.lua" 2>&1)
  check_contains "gf_host_load_policy + gf_host_run_cli see the loaded policy" "$out" '"duration": 42'
  check_contains "gf_host_run_cli returns the exit code" "$out" "cli rc=0"
  check_contains "gf_host_run_script passes arguments" "$out" "script got xy"
  check_contains "gf_host_run_script returns the script's code" "$out" "script rc=4"
  check_contains "gf_host_error reports a failure" "$out" "missing rc=2"
  check_contains "a bad policy's error is readable" "$out" "capture.duration must be a number > 0"
else
  not_ok "a C program compiles and links against libgpuflame.a" "$(head -5 "$TMP/cc.log")"
fi
t_done
