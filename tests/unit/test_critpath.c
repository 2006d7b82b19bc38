/* The longest path over a DAG given as columns (core/critpath_path.c, gf_cp_longest): values and predecessors
 * known by hand, the tie rule (the later source, then the lower edge), points without in-edges, a cycle refused. */
#include "critpath.h"
#include "tap.h"

int main(void)
{
    gf_err err;
    /* 0 → 1 (5), 0 → 2 (3), 1 → 3 (1), 2 → 3 (4): 3 is reached at 7 through 2; 4 has no in-edge */
    int32_t src[] = {0, 0, 1, 2}, dst[] = {1, 2, 3, 3};
    int64_t lag[] = {5, 3, 1, 4}, T[5];
    int32_t pred[5];
    CHECK("a DAG: ok", gf_cp_longest(5, 4, src, dst, lag, 100, T, pred, &err) == 0);
    CHECK("longest times", T[0] == 100 && T[1] == 105 && T[2] == 103 && T[3] == 107);
    CHECK("predecessors: the edge that set the time", pred[1] == 0 && pred[2] == 1 && pred[3] == 3 && pred[0] == -1);
    CHECK("a point without in-edges keeps the root's time", T[4] == 100 && pred[4] == -1);
    /* a tie at 3 (106 both ways): the later source (1 at 105) wins over 2 (at 103) */
    int64_t tie[] = {5, 3, 1, 3};
    gf_cp_longest(5, 4, src, dst, tie, 100, T, pred, &err);
    CHECK("a tie goes to the later source", T[3] == 106 && pred[3] == 2);
    /* two edges from one source to one point with equal lags: the lower edge */
    int32_t s2[] = {0, 0}, d2[] = {1, 1};
    int64_t l2[] = {2, 2};
    gf_cp_longest(2, 2, s2, d2, l2, 0, T, pred, &err);
    CHECK("then the lower edge", pred[1] == 0);
    int32_t s3[] = {0, 1}, d3[] = {1, 0};
    int64_t l3[] = {1, 1};
    CHECK("a cycle: an error", gf_cp_longest(2, 2, s3, d3, l3, 0, T, pred, &err) != 0 && strstr(err.msg, "cycle"));
    return tap_done();
}
