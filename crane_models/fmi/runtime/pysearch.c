/* Where a CPython lives (see pysearch.h): CRANE_COSIM_PYTHON, then the usual places (pyplaces.c), and the message
 * when none suits. The top floor of the search, over the usual places, one Python's description (pysetup.c), the
 * FMU's needs (pyneeds.c) and the paths (pypaths.c). */
#include "pysearch.h"

#include "pyneeds.h"
#include "pypaths.h"
#include "pyplaces.h"
#include "pysetup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
