/* What the runtime needs from the operating system, in one place: loading a library and its symbols,
 * this library's own file, files with UTF-8 names, environment variables, one process-wide lock and a
 * per-thread value with a destructor at thread exit. platform_posix.c (Linux, macOS) and
 * platform_windows.c each compile to nothing on the other family. */
#ifndef CRANE_PLATFORM_H
#define CRANE_PLATFORM_H

#include <stddef.h>
#include <stdio.h>

#include "pysearch.h"

/* Loads a CPython library so that extension modules resolve its symbols (POSIX: RTLD_NOW | RTLD_GLOBAL;
 * Windows: its own folder searched for its dependencies). NULL with the system's reason in err. */
void *plat_load(const char *path, char *err, size_t size);
void *plat_symbol(void *lib, const char *name);
/* Tells the CPython of lib, before its initialization, which program it runs as (Py_SetProgramName, a stable-ABI
 * function: the path is converted to wide characters as CPython converts its command line); 0 when lib lacks
 * the functions. */
int plat_set_program_name(void *lib, const char *path);
/* 1 with *lib set when the process already has a CPython loaded that exports Py_IsInitialized (POSIX: any
 * image, through RTLD_DEFAULT; Windows: a python3X.dll module). */
int plat_running_python(void **lib);

/* Keeps this library mapped until the process ends, whatever the host unloads. */
void plat_pin_self(void);
/* This library's file path (UTF-8), "" when unknown. */
void plat_own_path(char *out, size_t size);
/* This library's file name without folder and extension: pythonfmu and pythonfmu3 name the binary after the
 * model identifier, which is the slave's class name. */
void plat_own_stem(char *out, size_t size);

FILE *plat_fopen(const char *path, const char *mode); /* path in UTF-8 */

/* Sets name=value ("" or NULL: unset) for Python's initialization; returns the old value to restore
 * (malloc'd, NULL when unset). */
char *plat_swap_env(const char *name, const char *value);
void plat_restore_env(const char *name, char *saved);

void plat_lock(void);
void plat_unlock(void);
/* A lock every copy of this runtime in the process finds the same way (each FMU's library is its own copy, with its
 * own plat_lock): held while CPython is looked for and started, so that two FMUs instantiated for the first time on
 * two threads start it once. Named after the process id (Linux: an abstract socket; macOS: a POSIX named semaphore;
 * Windows: a named mutex, "Local\\crane-cosim-python-<pid>"); see docs/fmi-runtime.md. Called with plat_lock held;
 * when the system refuses the named object, only plat_lock is held. `python_runs`: CPython runs now (macOS then
 * removes the semaphore's name: every later copy sees the running Python first). */
void plat_process_lock(void);
void plat_process_unlock(int python_runs);

/* A value per thread: plat_thread_init once per process (under the lock, before any other use) names
 * what runs with a thread's value when that thread ends; the value is NULL until set. */
void plat_thread_init(void (*at_exit)(void *));
void *plat_thread_value(void);
void plat_set_thread_value(void *value);
/* 1 while the process is shutting down (Windows: other threads are gone, maybe holding the GIL). */
int plat_process_exiting(void);

/* The search hooks bound to this system (pysearch.h); release with plat_search_release. */
void plat_search_host(SearchHost *host);
void plat_search_release(SearchHost *host);

#endif
