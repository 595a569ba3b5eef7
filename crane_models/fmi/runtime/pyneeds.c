/* What an FMU needs of a Python (its record: the oldest version, the packages) and whether a Python found has it
 * in its site-packages (see pyneeds.h; the record's functions are part of the search's interface, pysearch.h).
 * Above the paths (pypaths.c), under the usual places and the search order that ask it (pyplaces.c, pysearch.c). */
#include "pyneeds.h"

#include "pypaths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the record ---------------------------------------------------------------------------------- */

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

/* ---- does it suit the FMU -------------------------------------------------------------------------- */

/* The site-packages folders a Python's site module uses (no user site: the runtime sets PYTHONNOUSERSITE):
 * the virtual environment's, and its base's only with include-system-site-packages; on Debian and Ubuntu also
 * dist-packages (their packages in lib/python3, pip's in local/lib/python3.X). */
static int site_folders(const SearchHost *h, const PythonSetup *s, char folders[][4200], int max)
{
    const char *where[2] = {s->venv[0] ? s->venv : s->home, s->venv[0] && s->system_site ? s->home : ""};
    const char *posix[] = {"%s/lib/python3.%d/site-packages", "%s/lib64/python3.%d/site-packages",
                           "%s/local/lib/python3.%d/dist-packages", "%s/lib/python3/dist-packages"};
    int n = 0;
    for (int w = 0; w < 2; ++w) {
        if (!where[w][0])
            continue;
        if (h->os == OS_WINDOWS && n < max) {
            snprintf(folders[n++], 4200, "%s\\Lib\\site-packages", where[w]);
            continue;
        }
        int only_venv = where[w] == s->venv; /* a venv has lib/python3.X/site-packages alone */
        for (int i = 0; i < (only_venv ? 2 : 4) && n < max; ++i)
            if (s->minor >= 0 || i == 3)
                snprintf(folders[n++], 4200, posix[i], where[w], s->minor);
    }
    return n;
}

int usable(const SearchHost *h, const Needs *needs, const PythonSetup *setup, int check_packages, char *why,
           size_t size)
{
    char folders[8][4200], name[96], bound[96], probe[4400];
    if (setup->minor >= 0 && setup->minor < needs->min_minor) {
        snprintf(why, size, "Python 3.%d is older than the 3.%d this FMU needs", setup->minor, needs->min_minor);
        return 0;
    }
    int n = check_packages ? site_folders(h, setup, folders, 8) : 0;
    for (int p = 0; check_packages && p < needs->n_packages; ++p) {
        requirement_parts(needs->packages[p], name, sizeof name, bound, sizeof bound);
        int found = 0;
        for (int i = 0; i < n && !found; ++i) {
            snprintf(probe, sizeof probe, "%s%c%s", folders[i], path_separator(h), name);
            found = is_dir(h, probe);
        }
        if (!found) {
            snprintf(why, size, "%s is not in its site-packages (", name);
            for (int i = 0; i < n; ++i) {
                search_append(why, size, i ? ", " : "");
                search_append(why, size, folders[i]);
            }
            search_append(why, size, n ? ")" : "unknown: no PYTHONHOME found)");
            return 0;
        }
    }
    return 1;
}
