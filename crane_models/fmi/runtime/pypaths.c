/* Paths and names for the search of a CPython (see pypaths.h): every file-system question goes through the
 * SearchHost hooks; paths are UTF-8, Windows paths use '\'. And the message every floor of the search appends
 * to. The bottom floor of the search (pysearch.h). */
#include "pypaths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void search_append(char *buf, size_t size, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 < size)
        snprintf(buf + n, size - n, "%s", text);
}

/* ---- paths --------------------------------------------------------------------------------------- */

char path_separator(const SearchHost *h) { return h->os == OS_WINDOWS ? '\\' : '/'; }

int is_file(const SearchHost *h, const char *p)
{
    int k = h->kind(h->ctx, p);
    return k == PATH_FILE || k == PATH_EXECUTABLE;
}

int is_dir(const SearchHost *h, const char *p) { return h->kind(h->ctx, p) == PATH_DIR; }

int ends_with_nocase(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    if (m > n)
        return 0;
    for (size_t i = 0; i < m; ++i) { /* ASCII case-insensitive: Windows names */
        char a = s[n - m + i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != tail[i])
            return 0;
    }
    return 1;
}

int is_program(const SearchHost *h, const char *p)
{
    if (h->os == OS_WINDOWS)
        return is_file(h, p) && ends_with_nocase(p, ".exe");
    return h->kind(h->ctx, p) == PATH_EXECUTABLE;
}

/* The last separator of p (both '/' and '\' on Windows), NULL when none. */
static char *last_separator(const SearchHost *h, const char *p)
{
    char *s = strrchr(p, '/');
    if (h->os == OS_WINDOWS) {
        char *b = strrchr(p, '\\');
        if (!s || (b && b > s))
            s = b;
    }
    return s;
}

const char *base_name(const SearchHost *h, const char *p)
{
    const char *s = last_separator(h, p);
    return s ? s + 1 : p;
}

/* Drops the last component of p in place; 0 when there is none to drop (the root or a bare name). */
int path_up(const SearchHost *h, char *p)
{
    char *s = last_separator(h, p);
    if (!s || s == p)
        return 0;
    *s = '\0';
    return 1;
}

int name_minor(const char *name)
{
    int minor = -1;
    for (const char *p = name; *p; ++p) {
        const char *digits = NULL;
        if (p[0] == '3' && p[1] == '.' && p[2] >= '0' && p[2] <= '9')
            digits = p + 2;
        else if ((p[0] == 'n' || p[0] == 'N') && p[1] == '3' && p[2] >= '0' && p[2] <= '9' && p - name >= 5 &&
                 (strncmp(p - 5, "pytho", 5) == 0 || strncmp(p - 5, "Pytho", 5) == 0))
            digits = p + 2;
        if (digits) {
            char *end;
            long value = strtol(digits, &end, 10);
            if (*end != 't') /* 3.13t: free-threaded, without the GIL the runtime takes */
                minor = (int)value;
        }
    }
    return minor;
}
