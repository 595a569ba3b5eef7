/* The parts of the search (pysearch.h is its interface): one Python described by its program, library or folder
 * and whether it suits the FMU (pysetup.c), the usual places of each OS (pyplaces.c). */
#ifndef CRANE_PYSETUP_H
#define CRANE_PYSETUP_H

#include "pysearch.h"

void search_append(char *buf, size_t size, const char *text); /* pysearch.c */
const char *base_name(const SearchHost *h, const char *path);
int is_program(const SearchHost *h, const char *path);
/* The minor version a name carries: "libpython3.12.so" / "Versions/3.12" / "python@3.12" / "python3.12" -> 12,
 * "python312.dll" / "Python312" -> 12; -1 when none, and for a free-threaded build ("3.13t"). */
int name_minor(const char *name);

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

/* 1 when the FMU can use that Python: not older than it needs and, with check_packages, every package it needs in
 * the Python's site-packages; else 0 with the reason in why. */
int usable(const SearchHost *h, const Needs *needs, const PythonSetup *setup, int check_packages, char *why,
           size_t size);

/* The usual places of the OS, in order (pyplaces.c): 1 when `attempt` succeeded with one of them. */
int try_usual_places(const SearchHost *h, const Needs *needs, TryPython attempt, void *user, char *why,
                     size_t why_size);

#endif
