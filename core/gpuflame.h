/* gpuflame's public embedding API: create a host (a Lua 5.4 state with gpuflame's modules, policies
 * and templates), point it at extra search directories, load policies, run a CLI command or a script.
 * Every call into Lua is protected; failures come back as an exit code plus gf_host_error(). */
#ifndef GPUFLAME_H
#define GPUFLAME_H

#define GPUFLAME_VERSION "0.1.0"

typedef struct gf_host gf_host;

/* Returns NULL only when memory is exhausted. */
gf_host *gf_host_new(void);
void gf_host_free(gf_host *host);

/* Adds a search directory; earlier calls take precedence (searched before GPUFLAME_PATH,
 * ~/.config/gpuflame, /etc/gpuflame and the embedded bundle). */
int gf_host_add_path(gf_host *host, const char *dir);
/* Layers a policy file over the current policy (the default one when none was loaded). 0 or exit code. */
int gf_host_load_policy(gf_host *host, const char *file);
/* Runs the CLI with argv-style arguments (without the program name); returns the exit code. */
int gf_host_run_cli(gf_host *host, int argc, const char *const *argv);
/* Runs a Lua script file with the gpuflame API loaded and `arg` set; returns the exit code. */
int gf_host_run_script(gf_host *host, const char *path, int argc, const char *const *argv);
/* The message of the last failure ("" if none). Valid until the next call on this host. */
const char *gf_host_error(const gf_host *host);

#endif
