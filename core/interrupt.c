/* The interrupt flag's storage (see interrupt.h): in the primitives' layer, so that a program linking
 * only primitives (unit tests, fuzz targets) has it without the Lua host. */
#include "interrupt.h"

volatile sig_atomic_t gf_interrupted = 0;
