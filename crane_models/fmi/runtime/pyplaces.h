/* The usual places of a CPython on each OS (pyplaces.c): above one Python's description and the needs (pysetup.h,
 * pyneeds.h), under the search order (pysearch.c). */
#ifndef CRANE_PYPLACES_H
#define CRANE_PYPLACES_H

#include "pysearch.h"

/* The usual places of the OS, in order: 1 when `attempt` succeeded with one of them. */
int try_usual_places(const SearchHost *h, const Needs *needs, TryPython attempt, void *user, char *why,
                     size_t why_size);

#endif
