/* Where a CPython lives (see pysearch.h): the record's needs, CRANE_COSIM_PYTHON, then the usual places
 * (pyplaces.c), and the message when none suits. One Python described by its program, library or folder is
 * pysetup.c. */
#include "pysetup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void search_append(char *buf, size_t size, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 < size)
        snprintf(buf + n, size - n, "%s", text);
}

int record_value(const char *text, const char *key, int nth, char *out, size_t size)
{
    size_t klen = strlen(key);
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=' && nth-- == 0) {
            size_t vlen = len - klen - 1;
            if (vlen > 0 && line[klen + vlen] == '\r')
                vlen--;
            if (vlen >= size)
                return 0;
            memcpy(out, line + klen + 1, vlen);
            out[vlen] = '\0';
            return 1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

/* ---- what the FMU needs ------------------------------------------------------------------------------ */

void needs_from_record(const char *record, Needs *needs)
{
    char value[96];
    int major = 0, minor = 0;
    memset(needs, 0, sizeof *needs);
    needs->min_minor = RUNTIME_MIN_MINOR;
    if (!record)
        return;
    if (record_value(record, "requires_python", 0, value, sizeof value) &&
        sscanf(value, "%d.%d", &major, &minor) == 2 && major == 3 && minor > needs->min_minor)
        needs->min_minor = minor;
    for (int i = 0; needs->n_packages < MAX_NEEDED_PACKAGES &&
                    record_value(record, "requires", i, value, sizeof value); ++i)
        snprintf(needs->packages[needs->n_packages++], sizeof needs->packages[0], "%s", value);
}

void requirement_parts(const char *requirement, char *name, size_t nsize, char *bound, size_t bsize)
{
    size_t n = strspn(requirement, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");
    const char *rest = requirement + n;
    snprintf(name, nsize, "%.*s", (int)n, requirement);
    rest += strspn(rest, " ");
    snprintf(bound, bsize, "%s", strncmp(rest, ">=", 2) == 0 ? rest + 2 + strspn(rest + 2, " ") : "");
}

int version_at_least(const char *have, const char *bound)
{
    while (*bound) {
        char *h_end, *b_end;
        long h = strtol(have, &h_end, 10), b = strtol(bound, &b_end, 10);
        if (h_end == have) /* have ran out of numbers: 1.24 is not at least 1.24.1 */
            h = 0;
        if (b_end == bound)
            return 1;
        if (h != b)
            return h > b;
        have = *h_end == '.' ? h_end + 1 : "";
        bound = *b_end == '.' ? b_end + 1 : "";
    }
    return 1;
}

/* ---- the order -------------------------------------------------------------------------------------- */

static void advice(const SearchHost *h, const Needs *needs, char *why, size_t size)
{
    char text[512], name[96], bound[96];
    if (h->os == OS_WINDOWS)
        search_append(why, size, ". Set CRANE_COSIM_PYTHON to a python3X.dll, a python.exe (also of a virtual "
                                 "environment) or its folder");
    else if (h->os == OS_MACOS)
        search_append(why, size, ". Set CRANE_COSIM_PYTHON to a libpython3.X.dylib or a framework's Python, a "
                                 "python executable (also of a virtual environment) or its prefix");
    else
        search_append(why, size, ". Set CRANE_COSIM_PYTHON to a shared libpython3.X.so, a python executable (also "
                                 "of a virtual environment) or its prefix");
    snprintf(text, sizeof text, ", of a 64-bit CPython 3.%d or newer", needs->min_minor);
    search_append(why, size, text);
    for (int p = 0; p < needs->n_packages; ++p) {
        requirement_parts(needs->packages[p], name, sizeof name, bound, sizeof bound);
        search_append(why, size, p ? " and " : " with ");
        search_append(why, size, name);
    }
    search_append(why, size, needs->n_packages ? " installed." : ".");
}

int search_python(const SearchHost *h, const Needs *needs, TryPython attempt, void *user, char *why,
                  size_t why_size)
{
    char reason[1024];
    int ok = 0;
    PythonSetup *setup = calloc(1, sizeof *setup);
    if (!setup) {
        search_append(why, why_size, "out of memory");
        return 0;
    }
    const char *hint = h->env(h->ctx, "CRANE_COSIM_PYTHON");
    if (hint && *hint) { /* as given: its packages are checked once it runs, not guessed from its folders */
        ok = setup_from_hint(h, hint, setup, reason, sizeof reason) &&
             usable(h, needs, setup, 0, reason, sizeof reason) && attempt(user, setup, reason, sizeof reason);
        if (!ok) {
            search_append(why, why_size, "CRANE_COSIM_PYTHON=");
            search_append(why, why_size, hint);
            search_append(why, why_size, ": ");
            search_append(why, why_size, reason);
            search_append(why, why_size, "; ");
        }
    } else {
        search_append(why, why_size, "CRANE_COSIM_PYTHON not set; ");
    }
    if (!ok)
        ok = try_usual_places(h, needs, attempt, user, why, why_size);
    if (!ok)
        advice(h, needs, why, why_size);
    free(setup);
    return ok;
}
