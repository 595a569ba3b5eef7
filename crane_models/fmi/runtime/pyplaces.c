/* The usual places of a CPython on each OS, tried after CRANE_COSIM_PYTHON (docs/fmi-runtime.md, "How it finds
 * Python"): on Linux and macOS the python3.X programs on PATH (a virtual environment's too), then Linux's standard
 * prefixes /usr/local and /usr, macOS's framework builds (python.org, Homebrew); on Windows the py launcher's
 * registry keys and python.org's install folders. Newest version first within each place; a Python met again
 * (the same library and virtual environment) is not tried twice. A Python found here is used only when it has the
 * packages the FMU needs in its site-packages: a system Python without numpy is passed over for the next one. */
#include "pyplaces.h"

#include "pyneeds.h"
#include "pypaths.h"
#include "pysetup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FOUND 64

typedef enum { FOUND_PROGRAM, FOUND_LIBRARY, FOUND_PREFIX } FoundKind;

typedef struct {
    int minor; /* from the name; -1 unknown (tried after the versioned ones) */
    int order; /* discovery order, kept among equal versions */
    FoundKind kind;
    char path[1024];
} Found;

/* One pass over the places: what the current place found, and every Python met so far (library|venv). */
typedef struct {
    const SearchHost *h;
    const Needs *needs;
    TryPython attempt;
    void *user;
    char *why;
    size_t why_size;
    Found found[MAX_FOUND];
    int n_found;
    char met[MAX_FOUND][1100];
    int n_met;
    PythonSetup setup;
    int ok;
} Places;

static int newer_first(const void *a, const void *b)
{
    const Found *x = a, *y = b;
    if (x->minor != y->minor)
        return (y->minor > x->minor) - (y->minor < x->minor);
    return (x->order > y->order) - (x->order < y->order);
}

static void add_found(Places *p, FoundKind kind, const char *path, int minor)
{
    if (p->n_found >= MAX_FOUND)
        return;
    Found *f = &p->found[p->n_found];
    f->kind = kind;
    f->minor = minor;
    f->order = p->n_found++;
    snprintf(f->path, sizeof f->path, "%s", path);
}

/* 1 when this Python was met before; else remembers it. */
static int met_before(Places *p)
{
    char key[1100];
    snprintf(key, sizeof key, "%.900s|%.190s", p->setup.lib, p->setup.venv);
    for (int i = 0; i < p->n_met; ++i)
        if (strcmp(p->met[i], key) == 0)
            return 1;
    if (p->n_met < MAX_FOUND)
        snprintf(p->met[p->n_met++], sizeof p->met[0], "%s", key);
    return 0;
}

/* Tries what the current place found, newest first, saying why each was passed over; then empties the place. */
static void try_found(Places *p)
{
    char reason[1536];
    qsort(p->found, (size_t)p->n_found, sizeof *p->found, newer_first);
    for (int i = 0; i < p->n_found && !p->ok; ++i) {
        const Found *f = &p->found[i];
        int made = 1;
        if (f->kind == FOUND_PROGRAM)
            made = setup_from_program(p->h, f->path, &p->setup, reason, sizeof reason);
        else if (f->kind == FOUND_PREFIX)
            made = setup_from_prefix(p->h, f->path, f->minor, &p->setup, reason, sizeof reason);
        else
            setup_from_library(p->h, f->path, &p->setup);
        if (made && met_before(p))
            continue;
        if (made && usable(p->h, p->needs, &p->setup, 1, reason, sizeof reason) &&
            p->attempt(p->user, &p->setup, reason, sizeof reason)) {
            p->ok = 1;
            break;
        }
        search_append(p->why, p->why_size, f->path);
        search_append(p->why, p->why_size, ": ");
        search_append(p->why, p->why_size, reason);
        search_append(p->why, p->why_size, "; ");
    }
    p->n_found = 0;
}

/* "python3" or "python3.<digits>" (not python3.12-config, python3-gdb, ...) */
static int is_python3_name(const char *name)
{
    if (strncmp(name, "python3", 7) != 0)
        return 0;
    if (!name[7])
        return 1;
    return name[7] == '.' && name[8] && strspn(name + 8, "0123456789") == strlen(name + 8);
}

/* Linux, macOS: the python3.X and python3 programs of each folder on PATH, in PATH's order. */
static void programs_on_path(Places *p)
{
    char dir[2048], pattern[2100], name[1024];
    const char *path = p->h->env(p->h->ctx, "PATH");
    if (!path || !*path) {
        search_append(p->why, p->why_size, "PATH not set; ");
        return;
    }
    for (const char *s = path; *s && !p->ok;) {
        size_t len = strcspn(s, ":");
        if (len && len < sizeof dir) {
            snprintf(dir, sizeof dir, "%.*s", (int)len, s);
            snprintf(pattern, sizeof pattern, "%s/python3*", dir);
            for (int i = 0; p->h->glob(p->h->ctx, pattern, i, name, sizeof name); ++i)
                if (is_python3_name(base_name(p->h, name)) && is_program(p->h, name))
                    add_found(p, FOUND_PROGRAM, name, name_minor(base_name(p->h, name)));
            try_found(p);
        }
        s += len + (s[len] == ':');
    }
}

/* Linux: the shared libraries of /usr/local (built from source) before /usr (the distribution's): one per
 * version, in lib, lib64 (Fedora, openSUSE) or the multiarch folder (Debian, Ubuntu). */
static const char *const LINUX_PREFIXES[] = {"/usr/local", "/usr"};

static void linux_prefixes(Places *p)
{
    char pattern[128], name[1024], lib[1024];
    const char *folders[] = {"lib", "lib64", "lib/*-linux-gnu"};
    for (size_t k = 0; k < sizeof LINUX_PREFIXES / sizeof *LINUX_PREFIXES && !p->ok; ++k) {
        int seen[100] = {0};
        for (int f = 0; f < 3; ++f) {
            snprintf(pattern, sizeof pattern, "%s/%s/libpython3*.so*", LINUX_PREFIXES[k], folders[f]);
            for (int i = 0; p->h->glob(p->h->ctx, pattern, i, name, sizeof name); ++i) {
                int minor = name_minor(base_name(p->h, name));
                if (minor >= 0 && minor < 100 && !seen[minor]++ &&
                    library_in_prefix(p->h, LINUX_PREFIXES[k], minor, lib, sizeof lib))
                    add_found(p, FOUND_LIBRARY, lib, minor);
            }
        }
        try_found(p);
    }
}

/* macOS framework builds: python.org, then Homebrew on arm64 and on x86-64 (also named in the message). */
static const char *const MACOS_LOCATIONS[] = {
    "/Library/Frameworks/Python.framework/Versions/3.*/Python",
    "/opt/homebrew/opt/python@3.*/Frameworks/Python.framework/Versions/3.*/Python",
    "/usr/local/opt/python@3.*/Frameworks/Python.framework/Versions/3.*/Python",
};

static void macos_frameworks(Places *p)
{
    char name[1024];
    for (size_t k = 0; k < sizeof MACOS_LOCATIONS / sizeof *MACOS_LOCATIONS && !p->ok; ++k) {
        for (int i = 0; p->h->glob(p->h->ctx, MACOS_LOCATIONS[k], i, name, sizeof name); ++i)
            add_found(p, FOUND_LIBRARY, name, name_minor(name)); /* the last version in the path: Versions/3.X */
        try_found(p);
    }
}

/* Windows: the py launcher's registry keys (plain "3.X" only: "3.12-32" is a 32-bit build, "3.13t" a
 * free-threaded one), then python.org's per-user and all-users install folders that are not registered. */
static void windows_installs(Places *p)
{
    char where[512], install[1024], pattern[1200], name[1024];
    for (int i = 0; p->h->registry && p->h->registry(p->h->ctx, i, where, sizeof where, install, sizeof install);
         ++i) {
        size_t len = strlen(install);
        while (len && (install[len - 1] == '\\' || install[len - 1] == '/'))
            install[--len] = '\0';
        const char *ver = base_name(p->h, where);
        int major = 0, minor = 0, used = 0;
        if (sscanf(ver, "%d.%d%n", &major, &minor, &used) == 2 && !ver[used] && major == 3)
            add_found(p, FOUND_PREFIX, install, minor);
    }
    try_found(p);
    const char *roots[] = {"LOCALAPPDATA", "ProgramFiles"};
    const char *tails[] = {"Programs\\Python\\Python3*", "Python3*"};
    for (int r = 0; r < 2 && !p->ok; ++r) {
        const char *root = p->h->env(p->h->ctx, roots[r]);
        if (!root || !*root)
            continue;
        snprintf(pattern, sizeof pattern, "%s\\%s", root, tails[r]);
        for (int i = 0; p->h->glob(p->h->ctx, pattern, i, name, sizeof name); ++i)
            add_found(p, FOUND_PREFIX, name, name_minor(base_name(p->h, name)));
        try_found(p);
    }
}

/* What was searched, for the message when nothing was usable. */
static void places_searched(Places *p)
{
    char text[600];
    if (p->h->os == OS_WINDOWS) {
        const char *local = p->h->env(p->h->ctx, "LOCALAPPDATA"), *all = p->h->env(p->h->ctx, "ProgramFiles");
        snprintf(text, sizeof text, "no usable Python in the registry (HKCU and HKLM\\Software\\Python\\PythonCore"
                 "\\3.X\\InstallPath), %%LOCALAPPDATA%%\\Programs\\Python\\Python3* (%.200s) and "
                 "%%ProgramFiles%%\\Python3* (%.200s)", local ? local : "unset", all ? all : "unset");
        search_append(p->why, p->why_size, text);
    } else if (p->h->os == OS_MACOS) {
        search_append(p->why, p->why_size, "no usable Python on PATH or in ");
        for (size_t i = 0; i < sizeof MACOS_LOCATIONS / sizeof *MACOS_LOCATIONS; ++i) {
            search_append(p->why, p->why_size, i ? ", " : "");
            search_append(p->why, p->why_size, MACOS_LOCATIONS[i]);
        }
    } else {
        search_append(p->why, p->why_size, "no usable Python on PATH or in /usr/local and /usr (lib, lib64, "
                                           "lib/*-linux-gnu)");
    }
}

int try_usual_places(const SearchHost *h, const Needs *needs, TryPython attempt, void *user, char *why,
                     size_t why_size)
{
    Places *p = calloc(1, sizeof *p);
    if (!p)
        return 0;
    p->h = h;
    p->needs = needs;
    p->attempt = attempt;
    p->user = user;
    p->why = why;
    p->why_size = why_size;
    if (h->os == OS_WINDOWS) {
        windows_installs(p);
    } else {
        programs_on_path(p);
        if (!p->ok && h->os == OS_LINUX)
            linux_prefixes(p);
        else if (!p->ok)
            macos_frameworks(p);
    }
    if (!p->ok)
        places_searched(p);
    int ok = p->ok;
    free(p);
    return ok;
}
