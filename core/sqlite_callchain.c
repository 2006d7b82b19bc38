/* The callchainId numbering of an export (see sqlite_callchain.h). */
#include "sqlite_callchain.h"

#include <stddef.h>

int gf_sqlite_callchain_shift(sqlite3 *db)
{
    /* (id, stackDepth) is CUDA_CALLCHAINS's primary key: each probe is an index look-up */
    static const char *const q =
        "SELECT count(*), "
        "coalesce(sum(EXISTS (SELECT 1 FROM CUDA_CALLCHAINS c WHERE c.id = r.callchainId)), 0), "
        "coalesce(sum(EXISTS (SELECT 1 FROM CUDA_CALLCHAINS c WHERE c.id = r.callchainId + 1)), 0) "
        "FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.callchainId IS NOT NULL";
    sqlite3_stmt *st = NULL;
    int shift = 0;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_int64 n = sqlite3_column_int64(st, 0), as_is = sqlite3_column_int64(st, 1),
                      shifted = sqlite3_column_int64(st, 2);
        shift = n > 0 && shifted == n && as_is < n;
    }
    sqlite3_finalize(st);
    return shift;
}
