/* fit_check: the residual check of a fit — noise that grows with the
 * value (docs/analysis.md, "Noise that grows with the value"). */
#include "fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>

int fit_noise_grows(const fit_result *r, double *ratio, double *p)
{
    *ratio = *p = NAN;
    size_t n = r->n, third = r->n / 3;
    if (n < 9)
        return 0;
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return -1;
    gsl_sort_index(order, r->fitted, 1, n);
    /* Goldfeld–Quandt: the residuals' mean square of the third of rows with
     * the largest fitted values over that of the smallest third (the middle
     * third left out), against F(third, third) */
    double low = 0, high = 0;
    for (size_t i = 0; i < third; i++) {
        double a = r->residual[order[i]], b = r->residual[order[n - 1 - i]];
        low += a * a;
        high += b * b;
    }
    free(order);
    if (!(low > 0))
        return 0;
    *ratio = high / low;
    *p = gsl_cdf_fdist_Q(*ratio, (double)third, (double)third);
    return *p < FIT_NOISE_GROWS_P;
}
