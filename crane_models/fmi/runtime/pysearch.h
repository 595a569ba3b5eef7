/* Where a CPython lives, by the conventions of Linux, macOS and Windows: the list of candidates the runtime
 * tries, in order (docs/fmi-runtime.md, "How it finds Python"). Pure logic over a small table of file-system
 * hooks (SearchHost), so the same code runs in the FMU binary (hooks bound to the real system in
 * platform_posix.c / platform_windows.c) and in a test on Linux with a fake file system for every OS
 * (tests/runtime_search/). No state, no allocation beyond a transient candidate list. */
#ifndef CRANE_PYSEARCH_H
#define CRANE_PYSEARCH_H

#include <stddef.h>

typedef enum { OS_LINUX, OS_MACOS, OS_WINDOWS } OsKind;

enum { PATH_MISSING = 0, PATH_FILE = 1, PATH_DIR = 2, PATH_EXECUTABLE = 3 };

typedef struct {
    OsKind os;
    void *ctx;
    /* PATH_MISSING, PATH_FILE, PATH_DIR or PATH_EXECUTABLE (a regular file the user may run) */
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
} SearchHost;

typedef struct {
    char lib[4096];   /* the shared libpython / python3X.dll to load */
    char home[4096];  /* PYTHONHOME during initialization ("" = let Python find it) */
    char path[16384]; /* PYTHONPATH during initialization ("" = none) */
} PythonSetup;

/* Tries one candidate: 1 when that Python now runs, else 0 with the reason in why. */
typedef int (*TryPython)(void *user, const PythonSetup *setup, char *why, size_t size);

/* The nth (0-based) value of `key` in a record of `key=value` lines; 1 when found. */
int record_value(const char *text, const char *key, int nth, char *out, size_t size);

/* Tries, in order, CRANE_COSIM_PYTHON, the build's record (when it was made for `platform`, or names no
 * platform) and, on macOS and Windows, the usual install locations, until `attempt` succeeds (1). Else 0
 * with `why` listing what was looked for and how to point the runtime elsewhere. */
int search_python(const SearchHost *host, const char *record, const char *platform, TryPython attempt,
                  void *user, char *why, size_t why_size);

/* This binary's platform as the build names it (FMI 3.0 tuple: x86_64-linux, x86_64-windows, ...). */
#if defined(_WIN32)
#define HOST_OS OS_WINDOWS
#define HOST_OS_NAME "windows"
#elif defined(__APPLE__)
#define HOST_OS OS_MACOS
#define HOST_OS_NAME "darwin"
#else
#define HOST_OS OS_LINUX
#define HOST_OS_NAME "linux"
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#define HOST_PLATFORM "aarch64-" HOST_OS_NAME
#else
#define HOST_PLATFORM "x86_64-" HOST_OS_NAME
#endif

#endif
