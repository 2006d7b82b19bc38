/* Thread counts from policy limits.threads (see threads.h). */
#include <unistd.h>

#include "threads.h"

int gf_threads_resolve(int want, int most)
{
    if (want <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        want = n > 0 && n < 1024 ? (int)n : 1;
    }
    if (most < 1)
        most = 1;
    return want < most ? want : most;
}
