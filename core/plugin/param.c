/* param: validation and canonical form of plugin parameters (see param.h). */
#include "param.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/units.h"
#include "base/util.h"

/* "an integer", "a real", ... for messages. */
static const char *with_article(runner_type type)
{
    switch (type) {
    case RUNNER_INTEGER: return "an integer";
    case RUNNER_REAL: return "a real";
    case RUNNER_TEXT: return "a text";
    case RUNNER_BOOLEAN: return "a boolean";
    }
    return "nothing";
}

long param_find(const runner_plugin *plugin, const char *name)
{
    for (uint32_t i = 0; i < plugin->param_count; i++)
        if (strcmp(plugin->params[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *param_suggest(const runner_plugin *plugin, const char *name)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    for (uint32_t i = 0; i < plugin->param_count; i++) {
        size_t d = util_edit_distance(name, plugin->params[i].name);
        if (d < best_distance) {
            best_distance = d;
            best = plugin->params[i].name;
        }
    }
    size_t len = strlen(name);
    size_t allowed = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    return best_distance <= allowed ? best : NULL;
}

/* Whole numbers exactly (2^53 as 9007199254740992), others with %.15g. */
static void describe_bound(double x, char *buf, size_t size)
{
    if (isinf(x))
        snprintf(buf, size, x > 0 ? "inf" : "-inf");
    else if (x == floor(x) && fabs(x) <= 9007199254740992.0)
        snprintf(buf, size, "%.0f", x);
    else
        snprintf(buf, size, "%.15g", x);
}

void param_describe_range(const runner_param *spec, char *buf, size_t size)
{
    char lo[32], hi[32];
    describe_bound(spec->min, lo, sizeof lo);
    describe_bound(spec->max, hi, sizeof hi);
    snprintf(buf, size, "[%s, %s]", lo, hi);
}

static int out_of_range(const runner_param *spec, double x, const char *shown, char *msg,
                        size_t msg_size)
{
    char range[80];
    param_describe_range(spec, range, sizeof range);
    snprintf(msg, msg_size, "%s: %s is out of range %s%s%s", spec->name, shown, range,
             spec->unit && *spec->unit ? " " : "", spec->unit ? spec->unit : "");
    (void)x;
    return -1;
}

/* A text that is a number with a unit ("2min", "1.5GiB") for a numeric
 * parameter becomes the number in the declared unit: an integer parameter's
 * exactly, in integer arithmetic (units_convert_integer), a real's as a
 * real. Other values are left alone.
 * Returns 0, or -1 with msg naming the parameter. */
static int convert_unit(const runner_param *spec, value *v, char *msg, size_t msg_size)
{
    if (v->type != RUNNER_TEXT || (spec->type != RUNNER_INTEGER && spec->type != RUNNER_REAL))
        return 0;
    double number, x;
    const char *unit;
    units_form form = units_split(v->as.text, &number, &unit);
    /* a bare number in quotes stays a text: only a unit makes text a number */
    if (form != UNITS_WITH_UNIT && (*unit == '\0' || unit == v->as.text))
        return 0;
    char reason[300], shown[400];
    if (spec->type == RUNNER_INTEGER) {
        /* exactly: 9007199254740993B is not 9007199254740992 bytes */
        int64_t whole;
        int rc = units_convert_integer(v->as.text, spec->unit, &whole, &x, reason, sizeof reason);
        if (rc == -1) {
            snprintf(msg, msg_size, "%s: %s", spec->name,
                     util_printable(reason, shown, sizeof shown));
            return -1;
        }
        if (rc == 0) {
            value_clear(v);
            *v = value_integer(whole);
            return 0;
        }
        /* not a whole number: x is about what it is */
        char number_text[32];
        snprintf(msg, msg_size, "%s: '%s' is %s%s%s, not a whole number", spec->name,
                 util_printable(v->as.text, shown, sizeof shown), units_number(x, number_text),
                 spec->unit && *spec->unit ? " " : "", spec->unit ? spec->unit : "");
        return -1;
    }
    if (units_convert(v->as.text, spec->unit, &x, reason, sizeof reason) != 0) {
        snprintf(msg, msg_size, "%s: %s", spec->name, util_printable(reason, shown, sizeof shown));
        return -1;
    }
    value_clear(v);
    *v = value_real(x);
    return 0;
}

/* Whether the integer v lies in [min, max], exactly: v is never turned into
 * a double (2^53 + 1 would become 2^53 and pass max = 2^53); the bounds,
 * doubles, are rounded inwards to whole numbers and compared as integers. */
static int integer_within(int64_t v, double min, double max)
{
    const double two_63 = 9223372036854775808.0;
    if (isnan(min) || isnan(max))
        return 0;
    if (max < -two_63 || min >= two_63)
        return 0;
    if (max < two_63 && v > (int64_t)floor(max))
        return 0;
    if (min > -two_63 && v < (int64_t)ceil(min))
        return 0;
    return 1;
}

/* The largest integer a double holds exactly with all below it: 2^53. */
#define EXACT_REAL_INTEGER 9007199254740992LL

int param_check(const runner_param *spec, value *v, char *msg, size_t msg_size)
{
    char shown[64];
    if (convert_unit(spec, v, msg, msg_size) != 0)
        return -1;
    switch (spec->type) {
    case RUNNER_INTEGER: {
        double x;
        if (v->type == RUNNER_INTEGER) {
            x = (double)v->as.integer;
        } else if (v->type == RUNNER_REAL) {
            int64_t whole;
            char reason[120];
            x = v->as.real;
            if (units_integer(x, &whole, reason, sizeof reason) != 0) {
                snprintf(msg, msg_size, "%s: %s", spec->name, reason);
                return -1;
            }
            *v = value_integer(whole);
        } else {
            snprintf(msg, msg_size, "%s: expected an integer, got %s", spec->name,
                     with_article(v->type));
            return -1;
        }
        if (!integer_within(v->as.integer, spec->min, spec->max)) {
            snprintf(shown, sizeof shown, "%" PRId64, v->as.integer);
            return out_of_range(spec, x, shown, msg, msg_size);
        }
        return 0;
    }
    case RUNNER_REAL: {
        if (v->type == RUNNER_INTEGER &&
            (v->as.integer > EXACT_REAL_INTEGER || v->as.integer < -EXACT_REAL_INTEGER)) {
            /* a real holds it only rounded: refused, not changed */
            snprintf(msg, msg_size,
                     "%s: %" PRId64 " is out of the exact integer range [-2^53, 2^53] of a real",
                     spec->name, v->as.integer);
            return -1;
        }
        if (v->type == RUNNER_INTEGER)
            *v = value_real((double)v->as.integer);
        else if (v->type != RUNNER_REAL) {
            snprintf(msg, msg_size, "%s: expected a number, got %s", spec->name,
                     with_article(v->type));
            return -1;
        }
        double x = v->as.real;
        if (!isfinite(x)) {
            snprintf(msg, msg_size, "%s: expected a finite number, got %s", spec->name,
                     isnan(x) ? "nan"
                     : x > 0  ? "inf"
                              : "-inf");
            return -1;
        }
        if (x < spec->min || x > spec->max) {
            snprintf(shown, sizeof shown, "%.15g", x);
            return out_of_range(spec, x, shown, msg, msg_size);
        }
        /* One zero: SQLite stores -0.0 as 0.0, so a point that kept the sign
         * would read back different from what it ran with (and a resumed
         * run would see other rows than the first). -0.0 becomes 0.0 here,
         * at entry, before the canonical form and the identity are made. */
        if (x == 0)
            v->as.real = 0.0;
        return 0;
    }
    case RUNNER_BOOLEAN:
        if (v->type != RUNNER_BOOLEAN) {
            snprintf(msg, msg_size, "%s: expected true or false, got %s", spec->name,
                     with_article(v->type));
            return -1;
        }
        return 0;
    case RUNNER_TEXT:
        if (v->type != RUNNER_TEXT) {
            snprintf(msg, msg_size, "%s: expected a string, got %s", spec->name,
                     with_article(v->type));
            return -1;
        }
        /* the canonical form is JSON, which holds UTF-8 only */
        if (!util_utf8_valid(v->as.text)) {
            char shown_text[128];
            snprintf(msg, msg_size, "%s: text is not valid UTF-8: '%s'", spec->name,
                     util_printable(v->as.text, shown_text, sizeof shown_text));
            return -1;
        }
        if (spec->choices) {
            size_t used = 0;
            char allowed[256] = "";
            for (const char *const *c = spec->choices; *c; c++) {
                if (strcmp(*c, v->as.text) == 0)
                    return 0;
                int n =
                    snprintf(allowed + used, sizeof allowed - used, "%s'%s'", used ? ", " : "", *c);
                if (n > 0 && (size_t)n < sizeof allowed - used)
                    used += (size_t)n;
            }
            char shown_text[128];
            snprintf(msg, msg_size, "%s: '%s' is not one of %s", spec->name,
                     util_printable(v->as.text, shown_text, sizeof shown_text), allowed);
            return -1;
        }
        return 0;
    }
    snprintf(msg, msg_size, "%s: parameter has an unknown type", spec->name);
    return -1;
}

value param_default(const runner_param *spec)
{
    switch (spec->type) {
    case RUNNER_INTEGER: return value_integer((int64_t)spec->default_number);
    case RUNNER_REAL: return value_real(spec->default_number);
    case RUNNER_BOOLEAN: return value_boolean(spec->default_number != 0);
    case RUNNER_TEXT: return value_text(spec->default_text);
    }
    return VALUE_NULL;
}

char *param_canonical_json(const runner_plugin *plugin, const value *params)
{
    json_t *object = json_object();
    if (!object)
        return NULL;
    for (uint32_t i = 0; i < plugin->param_count; i++) {
        /* A value JSON cannot hold (invalid UTF-8) must not silently drop
         * out of the identity: fail instead. */
        json_t *v = value_to_json(&params[i]);
        if (!v || json_object_set_new(object, plugin->params[i].name, v) != 0) {
            json_decref(object);
            return NULL;
        }
    }
    char *text = json_dumps(object, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(object);
    return text;
}

int param_point_identity(const runner_plugin *plugin, const char *canonical_json,
                         uint64_t sweep_seed, char identity_hex[65], uint64_t *point_seed)
{
    /* identity: name \n version \n params \n seed; the random seed leaves
     * the version out. Built with memcpy: this runs for every point. */
    char seed_digits[24], stack[512];
    char *seed_text = seed_digits + sizeof seed_digits;
    do { /* decimal by hand: snprintf cost as much as the rest */
        *--seed_text = (char)('0' + sweep_seed % 10);
        sweep_seed /= 10;
    } while (sweep_seed);
    int seed_len = (int)(seed_digits + sizeof seed_digits - seed_text);
    size_t name_len = strlen(plugin->name), version_len = strlen(plugin->version);
    size_t json_len = strlen(canonical_json);
    size_t total = name_len + version_len + json_len + (size_t)seed_len + 3;
    char *buf = total <= sizeof stack ? stack : malloc(total);
    if (!buf)
        return -1;
    char *p = buf;
    memcpy(p, plugin->name, name_len), p += name_len, *p++ = '\n';
    char *after_name = p;
    memcpy(p, plugin->version, version_len), p += version_len, *p++ = '\n';
    memcpy(p, canonical_json, json_len), p += json_len, *p++ = '\n';
    memcpy(p, seed_text, (size_t)seed_len), p += seed_len;
    unsigned char raw[32];
    int rc = digest_sha256_hex(buf, (size_t)(p - buf), identity_hex);
    if (rc == 0) {
        /* Drop "version\n" for the seed's text: name \n params \n seed. */
        memmove(after_name, after_name + version_len + 1,
                (size_t)(p - (after_name + version_len + 1)));
        p -= version_len + 1;
        rc = digest_sha256(buf, (size_t)(p - buf), raw);
    }
    if (rc == 0) {
        uint64_t seed = 0;
        for (int i = 7; i >= 0; i--)
            seed = (seed << 8) | raw[i];
        *point_seed = seed;
    }
    if (buf != stack)
        free(buf);
    return rc;
}
