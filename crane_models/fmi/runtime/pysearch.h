/* Where a CPython lives, by the conventions of Linux, macOS and Windows, and whether it is one the FMU can use:
 * the candidates the runtime tries, in order (docs/fmi-runtime.md, "How it finds Python"). Pure logic over a
 * small table of file-system hooks (SearchHost), so the same code runs in the FMU binary (hooks bound to the real
 * system in platform_posix.c / platform_windows.c) and in a test on Linux with a fake file system for every OS
 * (tests/runtime_search/). No state, no allocation beyond transient candidate lists.
 * Its floors, bottom-up (each with its header, runtime.SEARCH_SOURCES lists them in this order): pypaths.c paths and
 * names, the message; pyneeds.c what the FMU needs (the record's functions below) and whether a Python has it;
 * pysetup.c one Python described by a program, library or folder; pyplaces.c the usual places of each OS;
 * pysearch.c the order and the message when none suits (search_python). */
#ifndef CRANE_PYSEARCH_H
#define CRANE_PYSEARCH_H

#include <stddef.h>

typedef enum { OS_LINUX, OS_MACOS, OS_WINDOWS } OsKind;

enum { PATH_MISSING = 0, PATH_FILE = 1, PATH_DIR = 2, PATH_EXECUTABLE = 3 };

typedef struct {
    OsKind os;
    void *ctx;
    /* PATH_MISSING, PATH_FILE, PATH_DIR or PATH_EXECUTABLE (a regular file the user may run); links followed */
    int (*kind)(void *ctx, const char *path);
    /* The nth (0-based) match of a pattern ('*' wildcards) in ascending name order; 1 when there is one. */
    int (*glob)(void *ctx, const char *pattern, int nth, char *out, size_t size);
    /* A small text file (pyvenv.cfg) into buf, NUL-terminated; 1 when read. */
    int (*read)(void *ctx, const char *path, char *buf, size_t size);
    /* An environment variable, NULL when unset. */
    const char *(*env)(void *ctx, const char *name);
    /* Windows: the nth (0-based) entry of the py launcher's registry keys, HKCU before HKLM:
     * where = "HKCU\Software\Python\PythonCore\3.12", install = its InstallPath; 1 when there is one.
     * NULL elsewhere. */
    int (*registry)(void *ctx, int nth, char *where, size_t wsize, char *install, size_t isize);
    /* The path with its symbolic links resolved (POSIX realpath; Windows: the path as given); 1 when it exists. */
    int (*resolve)(void *ctx, const char *path, char *out, size_t size);
} SearchHost;

/* The oldest CPython 3.minor the runtime itself can use (the stable-ABI functions it calls). */
#define RUNTIME_MIN_MINOR 8
#define MAX_NEEDED_PACKAGES 8

/* What an FMU needs of a Python, from its record (resources/crane_cosim_runtime.txt): `requires_python=3.10`,
 * `requires=numpy>=1.24` lines. */
typedef struct {
    int min_minor;  /* the oldest 3.minor (RUNTIME_MIN_MINOR when the record names none) */
    int n_packages;
    char packages[MAX_NEEDED_PACKAGES][96]; /* whole requirements: "numpy>=1.24" */
} Needs;

typedef struct {
    char lib[4096];  /* the shared libpython / python3X.dll to load */
    char home[4096]; /* PYTHONHOME during initialization ("" = let Python find it) */
    char exe[4096];  /* the python program Python is told it runs as ("" = unknown: Python decides) */
    char venv[4096]; /* the virtual environment exe belongs to ("" = none): CPython then applies its pyvenv.cfg */
    int system_site; /* that pyvenv.cfg says include-system-site-packages = true */
    int minor;       /* 3.minor as the library's or the environment's name says; -1 when unknown */
} PythonSetup;

/* Tries one candidate: 1 when that Python now runs, else 0 with the reason in why. */
typedef int (*TryPython)(void *user, const PythonSetup *setup, char *why, size_t size);

/* ---- the record and what the FMU needs (pyneeds.c) ---- */

/* The nth (0-based) value of `key` in a record of `key=value` lines; 1 when found. */
int record_value(const char *text, const char *key, int nth, char *out, size_t size);

/* The FMU's needs from its record (NULL: none beyond the runtime's own minimum). */
void needs_from_record(const char *record, Needs *needs);

/* "numpy>=1.24" -> name "numpy", bound "1.24" ("" when the requirement has no lower bound). */
void requirement_parts(const char *requirement, char *name, size_t nsize, char *bound, size_t bsize);

/* 1 when the dotted version `have` ("2.4.6", "3.11.7 (main, ...)") is at least `bound` ("1.24"). */
int version_at_least(const char *have, const char *bound);

/* ---- the search (pysearch.c) ---- */

/* Tries, in order, CRANE_COSIM_PYTHON and the usual places of the OS (pyplaces.c) until `attempt` succeeds (1).
 * A candidate older than needs->min_minor is skipped, and one found in the usual places also when a needed
 * package is not in its site-packages; each skip is said in `why`. Else 0 with `why` listing what was tried and
 * how to point the runtime elsewhere. */
int search_python(const SearchHost *host, const Needs *needs, TryPython attempt, void *user, char *why,
                  size_t why_size);

/* The OS this binary runs on. */
#if defined(_WIN32)
#define HOST_OS OS_WINDOWS
#elif defined(__APPLE__)
#define HOST_OS OS_MACOS
#else
#define HOST_OS OS_LINUX
#endif

#endif
