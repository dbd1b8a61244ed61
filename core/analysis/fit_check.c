/* fit_check: the residual check of a fit — noise that grows with the
 * value (docs/analysis.md, "Noise that grows with the value"). */
#include "fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

int fit_noise_grows(const fit_result *r, double *rho, double *p)
{
    *rho = *p = NAN;
    size_t n = r->n;
    if (n < 8)
        return 0;
    double *size = malloc(n * sizeof *size), *work = malloc(2 * n * sizeof *work);
    if (!size || !work) {
        free(size);
        free(work);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        size[i] = fabs(r->residual[i]);
    *rho = gsl_stats_spearman(size, 1, r->fitted, 1, n, work);
    free(size);
    free(work);
    if (!isfinite(*rho))
        return 0;
    double df = (double)n - 2;
    *p = *rho >= 1 ? 0 : gsl_cdf_tdist_Q(*rho * sqrt(df / (1 - *rho * *rho)), df);
    return *rho > 0 && *p < FIT_NOISE_GROWS_P;
}
