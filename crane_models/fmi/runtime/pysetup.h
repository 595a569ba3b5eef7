/* One Python described by its program, library or folder (pysetup.c): above the paths (pypaths.h), under the usual
 * places and the search order (pyplaces.h, pysearch.c). */
#ifndef CRANE_PYSETUP_H
#define CRANE_PYSETUP_H

#include "pysearch.h"

/* A Python described by its program (also one of a virtual environment), library or installation folder (also a
 * virtual environment's); 0 with the reason in why when no shared library belongs to it. `minor` -1: the newest. */
int setup_from_program(const SearchHost *h, const char *program, PythonSetup *setup, char *why, size_t size);
void setup_from_library(const SearchHost *h, const char *lib, PythonSetup *setup);
int setup_from_prefix(const SearchHost *h, const char *prefix, int minor, PythonSetup *setup, char *why,
                      size_t size);
/* CRANE_COSIM_PYTHON: a library, a python program or a folder, as setup_from_*. */
int setup_from_hint(const SearchHost *h, const char *hint, PythonSetup *setup, char *why, size_t size);
/* The shared library of 3.minor (-1: the newest) of an installation folder; 1 when found. */
int library_in_prefix(const SearchHost *h, const char *prefix, int minor, char *lib, size_t size);

#endif
