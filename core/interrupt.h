/* The interrupt flag: SIGINT/SIGTERM handlers (core/host/host.c) set it; blocking primitives poll it to
 * stop their work, and the Lua hook turns it into an error. Lua-free, so every layer can include it. */
#ifndef GF_INTERRUPT_H
#define GF_INTERRUPT_H

#include <signal.h>

/* 0, or the number of the last SIGINT/SIGTERM received. */
extern volatile sig_atomic_t gf_interrupted;

#endif
