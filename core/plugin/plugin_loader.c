/* plugin_loader: dlopen, ABI check, metadata validation, registry. */
#include "plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/install_layout.h"
#include "base/util.h"
#include "store/store.h"

struct plugin_registry {
    loaded_plugin *plugins;
    size_t count, capacity;
    char **errors;      /* one line per file that failed to load */
    char **error_stems; /* the file stem each error belongs to */
    size_t error_count, error_capacity;
    char *search_path;
};

static const char *type_name(runner_type t)
{
    switch (t) {
    case RUNNER_INTEGER: return "integer";
    case RUNNER_REAL: return "real";
    case RUNNER_TEXT: return "text";
    case RUNNER_BOOLEAN: return "boolean";
    }
    return NULL;
}

/* Text a plugin declares is shown in help, kept with every point and sent
 * as JSON (the identity, webhook bodies): UTF-8 only, checked at load so
 * no sweep fails on it later. owner is "parameter 'x'" and the like. */
static int check_utf8(const char *text, const char *owner, const char *what, char *msg, size_t size)
{
    if (util_utf8_valid(text))
        return 0;
    char shown[96];
    snprintf(msg, size, "%s: %s is not valid UTF-8: '%s'", owner, what,
             util_printable(text, shown, sizeof shown));
    return -1;
}

/* A name as the messages show it: escaped, since it failed its checks. */
static const char *shown_name(const char *name, char *buf, size_t size)
{
    return name ? util_printable(name, buf, size) : "(null)";
}

static int validate_param(const runner_param *p, uint32_t i, char *msg, size_t size)
{
    char shown[96], owner[96];
    if (!util_is_identifier(p->name)) {
        snprintf(msg, size, "parameter %u: name '%s' is not a lower_snake_case identifier", i + 1,
                 shown_name(p->name, shown, sizeof shown));
        return -1;
    }
    snprintf(owner, sizeof owner, "parameter '%s'", p->name);
    if (store_reserved_name(p->name)) {
        snprintf(msg, size, "parameter '%s': the name is reserved by runner", p->name);
        return -1;
    }
    if (!type_name(p->type)) {
        snprintf(msg, size, "parameter '%s': unknown type %d", p->name, (int)p->type);
        return -1;
    }
    if (!p->unit || !p->doc) {
        snprintf(msg, size, "parameter '%s': unit and doc must not be NULL (use \"\")", p->name);
        return -1;
    }
    if (check_utf8(p->unit, owner, "unit", msg, size) != 0 ||
        check_utf8(p->doc, owner, "doc", msg, size) != 0)
        return -1;
    if (p->type == RUNNER_INTEGER || p->type == RUNNER_REAL) {
        if (!isfinite(p->default_number)) {
            snprintf(msg, size, "parameter '%s': default must be a finite number", p->name);
            return -1;
        }
        if (isnan(p->min) || isnan(p->max) || p->min > p->max) {
            snprintf(msg, size, "parameter '%s': range [%g, %g] is empty", p->name, p->min, p->max);
            return -1;
        }
        if (!(p->default_number >= p->min && p->default_number <= p->max)) {
            snprintf(msg, size, "parameter '%s': default %g is outside [%g, %g]", p->name,
                     p->default_number, p->min, p->max);
            return -1;
        }
        if (p->type == RUNNER_INTEGER && p->default_number != floor(p->default_number)) {
            snprintf(msg, size, "parameter '%s': integer default %g is not whole", p->name,
                     p->default_number);
            return -1;
        }
    } else if (p->type == RUNNER_BOOLEAN) {
        if (p->default_number != 0 && p->default_number != 1) {
            snprintf(msg, size, "parameter '%s': boolean default must be 0 or 1", p->name);
            return -1;
        }
    } else {
        if (!p->default_text) {
            snprintf(msg, size, "parameter '%s': text default must not be NULL", p->name);
            return -1;
        }
        if (check_utf8(p->default_text, owner, "default", msg, size) != 0)
            return -1;
        if (p->choices) {
            int found = 0;
            for (const char *const *c = p->choices; *c; c++) {
                if (check_utf8(*c, owner, "a choice", msg, size) != 0)
                    return -1;
                found |= strcmp(*c, p->default_text) == 0;
            }
            if (!found) {
                snprintf(msg, size, "parameter '%s': default '%s' is not among its choices",
                         p->name, util_printable(p->default_text, shown, sizeof shown));
                return -1;
            }
        }
    }
    return 0;
}

uint32_t plugin_flags(const runner_plugin *plugin)
{
    if (plugin->struct_size < offsetof(runner_plugin, flags) + sizeof plugin->flags)
        return 0;
    return plugin->flags;
}

int plugin_validate(const runner_plugin *plugin, char *msg, size_t size)
{
    char shown[96], owner[96];
    if (!util_is_identifier(plugin->name)) {
        snprintf(msg, size, "name '%s' is not a lower_snake_case identifier",
                 shown_name(plugin->name, shown, sizeof shown));
        return -1;
    }
    snprintf(owner, sizeof owner, "plugin '%s'", plugin->name);
    if (store_reserved_name(plugin->name)) {
        snprintf(msg, size, "name '%s' is reserved by runner's catalog", plugin->name);
        return -1;
    }
    if (!plugin->version || !*plugin->version || !plugin->summary || !*plugin->summary) {
        snprintf(msg, size, "plugin '%s' must declare a version and a one-line summary",
                 plugin->name);
        return -1;
    }
    if (check_utf8(plugin->version, owner, "version", msg, size) != 0 ||
        check_utf8(plugin->summary, owner, "summary", msg, size) != 0)
        return -1;
    if (!plugin->run) {
        snprintf(msg, size, "plugin '%s' has no run function", plugin->name);
        return -1;
    }
    if (plugin_flags(plugin) & ~RUNNER_PLUGIN_KNOWN_FLAGS) {
        snprintf(msg, size,
                 "plugin '%s' declares flags 0x%x this runner does not know (it "
                 "knows 0x%x); upgrade runner",
                 plugin->name, (unsigned)plugin_flags(plugin), (unsigned)RUNNER_PLUGIN_KNOWN_FLAGS);
        return -1;
    }
    if ((plugin->param_count && !plugin->params) || (plugin->column_count && !plugin->columns) ||
        plugin->column_count == 0) {
        snprintf(msg, size,
                 "plugin '%s': parameter or column arrays are missing (a plugin "
                 "needs at least one column)",
                 plugin->name);
        return -1;
    }
    for (uint32_t i = 0; i < plugin->param_count; i++) {
        if (validate_param(&plugin->params[i], i, msg, size) != 0)
            return -1;
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(plugin->params[i].name, plugin->params[j].name) == 0) {
                snprintf(msg, size, "parameter '%s' is declared twice", plugin->params[i].name);
                return -1;
            }
    }
    for (uint32_t i = 0; i < plugin->column_count; i++) {
        const runner_column *c = &plugin->columns[i];
        if (!util_is_identifier(c->name)) {
            snprintf(msg, size, "column %u: name '%s' is not a lower_snake_case identifier", i + 1,
                     shown_name(c->name, shown, sizeof shown));
            return -1;
        }
        if (store_reserved_name(c->name)) {
            snprintf(msg, size, "column '%s': the name is reserved by runner", c->name);
            return -1;
        }
        if (!type_name(c->type) || !c->unit || !c->doc) {
            snprintf(msg, size, "column '%s': needs a valid type, a unit and a doc", c->name);
            return -1;
        }
        snprintf(owner, sizeof owner, "column '%s'", c->name);
        if (check_utf8(c->unit, owner, "unit", msg, size) != 0 ||
            check_utf8(c->doc, owner, "doc", msg, size) != 0)
            return -1;
        for (uint32_t j = 0; j < plugin->param_count; j++)
            if (strcmp(c->name, plugin->params[j].name) == 0) {
                snprintf(msg, size, "column '%s' has the name of a parameter", c->name);
                return -1;
            }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(c->name, plugin->columns[j].name) == 0) {
                snprintf(msg, size, "column '%s' is declared twice", c->name);
                return -1;
            }
    }
    return 0;
}

static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 3 && strcmp(base + n - 3, ".so") == 0)
        n -= 3;
    char *stem = malloc(n + 1);
    if (stem) {
        memcpy(stem, base, n);
        stem[n] = '\0';
    }
    return stem;
}

/* path made absolute against the working directory, without resolving
 * links (./x.so: /cwd/x.so), so that the sweep_plugin row it is stored in
 * names the file from anywhere. NULL when out of memory or the working
 * directory is gone. */
static char *absolute_path(const char *path)
{
    if (path[0] == '/')
        return util_strdup(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    while (path[0] == '.' && path[1] == '/')
        for (path += 2; *path == '/';)
            path++;
    return util_format("%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/", path);
}

int plugin_load_file(const char *path, loaded_plugin *out, char **err)
{
    memset(out, 0, sizeof *out);
    char msg[512];
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        return util_fail(err,
                         "%s: cannot load plugin: %s (is it a shared object built for "
                         "this machine? check it with 'file' and 'ldd')",
                         path, why ? why : "unknown dlopen error");
    }
    dlerror();
    runner_plugin_entry_fn entry;
    /* POSIX guarantees object/function pointer conversion for dlsym. */
    *(void **)&entry = dlsym(handle, RUNNER_PLUGIN_ENTRY_SYMBOL);
    if (!entry) {
        dlclose(handle);
        return util_fail(err,
                         "%s: not a runner plugin: no '%s' symbol (define it with "
                         "RUNNER_PLUGIN_DEFINE from <runner/plugin.h>)",
                         path, RUNNER_PLUGIN_ENTRY_SYMBOL);
    }
    const runner_plugin *desc = entry();
    if (!desc) {
        dlclose(handle);
        return util_fail(err, "%s: invalid plugin metadata: %s() returned NULL", path,
                         RUNNER_PLUGIN_ENTRY_SYMBOL);
    }
    if (desc->abi_version != RUNNER_PLUGIN_ABI) {
        /* name and abi_version sit first in every ABI's descriptor. */
        const char *name = desc->name ? desc->name : "plugin";
        int rc = desc->abi_version > RUNNER_PLUGIN_ABI
                     ? util_fail(err,
                                 "%s: %s needs plugin ABI %u, runner provides %d; upgrade runner "
                                 "or rebuild the plugin against this runner's <runner/plugin.h>",
                                 path, name, (unsigned)desc->abi_version, RUNNER_PLUGIN_ABI)
                     : util_fail(err,
                                 "%s: %s declares plugin ABI %u, runner provides %d; rebuild it "
                                 "against this runner's <runner/plugin.h>",
                                 path, name, (unsigned)desc->abi_version, RUNNER_PLUGIN_ABI);
        dlclose(handle);
        return rc;
    }
    /* A plugin built before fields were appended has a shorter struct: its
     * missing fields read as 0 (plugin_flags). Shorter than ABI 1's first
     * struct is not a runner_plugin at all. */
    if (desc->struct_size < RUNNER_PLUGIN_ABI1_SIZE) {
        /* desc lives in the object: read it before dlclose unmaps it. */
        int rc = util_fail(err,
                           "%s: invalid plugin metadata: struct_size %u is smaller than "
                           "ABI %d's runner_plugin (%zu bytes)",
                           path, (unsigned)desc->struct_size, RUNNER_PLUGIN_ABI,
                           (size_t)RUNNER_PLUGIN_ABI1_SIZE);
        dlclose(handle);
        return rc;
    }
    if (plugin_validate(desc, msg, sizeof msg) != 0) {
        dlclose(handle);
        return util_fail(err, "%s: invalid plugin metadata: %s", path, msg);
    }
    out->desc = desc;
    out->handle = handle;
    out->path = absolute_path(path);
    out->file_stem = stem_of(path);
    if (!out->path || !out->file_stem || digest_file_sha256_hex(path, out->sha256) != 0) {
        plugin_unload(out);
        return util_fail(err, "%s: cannot read plugin file: %s", path, strerror(errno));
    }
    return 0;
}

void plugin_unload(loaded_plugin *lp)
{
    if (!lp)
        return;
    /* RUNNER_NO_DLCLOSE keeps plugins mapped, so leak reports under the
     * sanitizers show the plugin's own frames. */
    if (lp->handle && !getenv("RUNNER_NO_DLCLOSE"))
        dlclose(lp->handle);
    free(lp->path);
    free(lp->file_stem);
    memset(lp, 0, sizeof *lp);
}

static int add_error(plugin_registry *reg, const char *stem, char *message)
{
    if (reg->error_count == reg->error_capacity) {
        size_t cap = reg->error_capacity ? reg->error_capacity * 2 : 8;
        char **e = realloc(reg->errors, cap * sizeof *e);
        if (e)
            reg->errors = e;
        char **s = realloc(reg->error_stems, cap * sizeof *s);
        if (s)
            reg->error_stems = s;
        if (!e || !s) {
            free(message);
            return -1;
        }
        reg->error_capacity = cap;
    }
    reg->errors[reg->error_count] = message;
    reg->error_stems[reg->error_count] = util_strdup(stem);
    reg->error_count++;
    return 0;
}

static loaded_plugin *find_loaded(plugin_registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->count; i++)
        if (reg->plugins[i].desc && strcmp(reg->plugins[i].desc->name, name) == 0)
            return &reg->plugins[i];
    return NULL;
}

/* 1 if a duplicate-name error for name was reported in this directory. */
static int duplicate_reported(const plugin_registry *reg, size_t first_error, const char *name)
{
    for (size_t i = first_error; i < reg->error_count; i++)
        if (reg->error_stems[i] && strcmp(reg->error_stems[i], name) == 0 &&
            strncmp(reg->errors[i], "two plugins named", 17) == 0)
            return 1;
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every *.so of one directory. Names already provided by an earlier
 * directory are shadowed; a name seen twice in this directory is an error. */
static int scan_dir(plugin_registry *reg, const char *dir, int explicit_dir, char **err)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (explicit_dir)
            return util_fail(err, "plugin directory '%s': %s", dir, strerror(errno));
        return 0;
    }
    size_t first_in_dir = reg->count, first_error_in_dir = reg->error_count;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *entry;
    while ((entry = readdir(d))) {
        size_t len = strlen(entry->d_name);
        if (len < 4 || strcmp(entry->d_name + len - 3, ".so") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **bigger = realloc(names, cap * sizeof *bigger);
            if (!bigger)
                break;
            names = bigger;
        }
        names[n++] = util_strdup(entry->d_name);
    }
    closedir(d);
    /* Directory order is arbitrary; sorted names make errors reproducible. */
    qsort(names, n, sizeof *names, compare_strings);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char *path = util_format("%s/%s", dir, names[i]);
        char *stem = stem_of(names[i]);
        char *load_err = NULL;
        loaded_plugin lp;
        int shadowed = 0;
        for (size_t j = 0; j < first_in_dir && stem; j++)
            shadowed |= strcmp(reg->plugins[j].file_stem, stem) == 0;
        /* A file that failed to load in an earlier directory shadows too: the
         * user put it first, so its error is the answer, not a later copy. */
        for (size_t j = 0; j < first_error_in_dir && stem; j++)
            shadowed |= reg->error_stems[j] && strcmp(reg->error_stems[j], stem) == 0;
        if (!path || !stem || shadowed) {
            free(path);
            free(stem);
            continue;
        }
        if (plugin_load_file(path, &lp, &load_err) != 0) {
            add_error(reg, stem, load_err);
        } else {
            loaded_plugin *same = find_loaded(reg, lp.desc->name);
            if (duplicate_reported(reg, first_error_in_dir, lp.desc->name)) {
                plugin_unload(&lp); /* a third file of a name already refused */
            } else if (same && (size_t)(same - reg->plugins) >= first_in_dir) {
                char *message = util_format("two plugins named '%s': %s and %s; remove one, or "
                                            "put the one you want in an earlier --plugin-dir",
                                            lp.desc->name, same->path, lp.path);
                add_error(reg, lp.desc->name, message);
                same->desc = NULL; /* marks it for removal below */
                plugin_unload(&lp);
            } else if (same) {
                plugin_unload(&lp); /* an earlier directory wins */
            } else {
                if (reg->count == reg->capacity) {
                    size_t c = reg->capacity ? reg->capacity * 2 : 8;
                    loaded_plugin *p = realloc(reg->plugins, c * sizeof *p);
                    if (!p) {
                        plugin_unload(&lp);
                        rc = util_fail(err, "out of memory loading plugins");
                        free(path);
                        free(stem);
                        break;
                    }
                    reg->plugins = p;
                    reg->capacity = c;
                }
                reg->plugins[reg->count++] = lp;
            }
        }
        free(path);
        free(stem);
    }
    /* Drop plugins that turned out to be duplicated names. */
    size_t kept = 0;
    for (size_t i = 0; i < reg->count; i++) {
        if (reg->plugins[i].desc)
            reg->plugins[kept++] = reg->plugins[i];
        else
            plugin_unload(&reg->plugins[i]);
    }
    reg->count = kept;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int append_path(char **search_path, const char *dir)
{
    char *joined = *search_path ? util_format("%s:%s", *search_path, dir) : util_strdup(dir);
    if (!joined)
        return -1;
    free(*search_path);
    *search_path = joined;
    return 0;
}

int plugin_registry_open(const char *const *extra_dirs, plugin_registry **out, char **err)
{
    plugin_registry *reg = calloc(1, sizeof *reg);
    if (!reg)
        return util_fail(err, "out of memory");
    for (const char *const *dir = extra_dirs; dir && *dir; dir++) {
        append_path(&reg->search_path, *dir);
        if (scan_dir(reg, *dir, 1, err) != 0)
            goto fail;
    }
    const char *env = getenv("RUNNER_PLUGIN_PATH");
    if (env && *env) {
        char *copy = util_strdup(env), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            append_path(&reg->search_path, dir);
            if (scan_dir(reg, dir, 0, err) != 0) {
                free(copy);
                goto fail;
            }
        }
        free(copy);
    }
    /* runner's own plugins: the build tree's, or those installed beside it. */
    char *own = install_layout_plugin_dir();
    if (!own) {
        util_fail(err, "out of memory");
        goto fail;
    }
    append_path(&reg->search_path, own);
    int rc = scan_dir(reg, own, 0, err);
    free(own);
    if (rc != 0)
        goto fail;
    *out = reg;
    return 0;
fail:
    plugin_registry_free(reg);
    return -1;
}

void plugin_registry_free(plugin_registry *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->count; i++)
        plugin_unload(&reg->plugins[i]);
    for (size_t i = 0; i < reg->error_count; i++) {
        free(reg->errors[i]);
        free(reg->error_stems[i]);
    }
    free(reg->plugins);
    free(reg->errors);
    free(reg->error_stems);
    free(reg->search_path);
    free(reg);
}

const loaded_plugin *plugin_registry_get(const plugin_registry *reg, const char *raw_name,
                                         char **err)
{
    char name[128];
    util_printable(raw_name, name, sizeof name);
    for (size_t i = 0; i < reg->count; i++)
        if (strcmp(reg->plugins[i].desc->name, name) == 0)
            return &reg->plugins[i];
    for (size_t i = 0; i < reg->error_count; i++)
        if (reg->error_stems[i] && strcmp(reg->error_stems[i], name) == 0) {
            util_fail(err, "%s", reg->errors[i]);
            return NULL;
        }
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    for (size_t i = 0; i < reg->count; i++) {
        size_t d = util_edit_distance(name, reg->plugins[i].desc->name);
        if (d < best_distance) {
            best_distance = d;
            best = reg->plugins[i].desc->name;
        }
    }
    if (best && best_distance <= (strlen(name) <= 4 ? 1u : 2u))
        util_fail(err,
                  "unknown plugin '%s' (did you mean '%s'?); 'runner plugins' lists the "
                  "installed ones",
                  name, best);
    else
        util_fail(err,
                  "unknown plugin '%s'; searched %s; 'runner plugins' lists the installed "
                  "ones",
                  name, reg->search_path ? reg->search_path : "(nothing)");
    return NULL;
}

size_t plugin_registry_count(const plugin_registry *reg) { return reg->count; }

const loaded_plugin *plugin_registry_at(const plugin_registry *reg, size_t index)
{
    return index < reg->count ? &reg->plugins[index] : NULL;
}

size_t plugin_registry_error_count(const plugin_registry *reg) { return reg->error_count; }

const char *plugin_registry_error(const plugin_registry *reg, size_t index)
{
    return index < reg->error_count ? reg->errors[index] : NULL;
}

const char *plugin_registry_search_path(const plugin_registry *reg)
{
    return reg->search_path ? reg->search_path : "";
}
