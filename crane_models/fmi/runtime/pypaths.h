/* Paths and names through the SearchHost hooks, and the search's message (pypaths.c): the bottom floor of the
 * search (pysearch.h is its interface; above this: pyneeds.h, pysetup.h, pyplaces.h, then the order, pysearch.c). */
#ifndef CRANE_PYPATHS_H
#define CRANE_PYPATHS_H

#include "pysearch.h"

/* Appends text to the NUL-terminated message buf of size bytes (cut at its end). */
void search_append(char *buf, size_t size, const char *text);

char path_separator(const SearchHost *h); /* '\' on Windows, '/' elsewhere */
int is_file(const SearchHost *h, const char *path);    /* a regular file, executable or not */
int is_dir(const SearchHost *h, const char *path);
int is_program(const SearchHost *h, const char *path); /* Windows: a .exe file; elsewhere an executable */
int ends_with_nocase(const char *s, const char *tail);  /* tail in lower case; ASCII */
const char *base_name(const SearchHost *h, const char *path);
/* Drops the last component of path in place; 0 when there is none to drop (the root or a bare name). */
int path_up(const SearchHost *h, char *path);
/* The minor version a name carries: "libpython3.12.so" / "Versions/3.12" / "python@3.12" / "python3.12" -> 12,
 * "python312.dll" / "Python312" -> 12; -1 when none, and for a free-threaded build ("3.13t"). */
int name_minor(const char *name);

#endif
