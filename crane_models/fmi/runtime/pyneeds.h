/* Whether a Python found suits the FMU (pyneeds.c, which also reads the record: record_value, needs_from_record,
 * requirement_parts and version_at_least, declared with the search's interface in pysearch.h). Above the paths
 * (pypaths.h). */
#ifndef CRANE_PYNEEDS_H
#define CRANE_PYNEEDS_H

#include "pysearch.h"

/* 1 when the FMU can use that Python: not older than it needs and, with check_packages, every package it needs in
 * the Python's site-packages; else 0 with the reason in why. */
int usable(const SearchHost *h, const Needs *needs, const PythonSetup *setup, int check_packages, char *why,
           size_t size);

#endif
