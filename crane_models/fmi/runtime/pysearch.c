/* Where a CPython lives (see pysearch.h): CRANE_COSIM_PYTHON, the build's record, the usual install locations.
 * Paths are UTF-8; Windows paths use '\'. Every file-system question goes through the SearchHost hooks. */
#include "pysearch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(char *buf, size_t size, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 < size)
        snprintf(buf + n, size - n, "%s", text);
}

int record_value(const char *text, const char *key, int nth, char *out, size_t size)
{
    size_t klen = strlen(key);
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=' && nth-- == 0) {
            size_t vlen = len - klen - 1;
            if (vlen > 0 && line[klen + vlen] == '\r')
                vlen--;
            if (vlen >= size)
                return 0;
            memcpy(out, line + klen + 1, vlen);
            out[vlen] = '\0';
            return 1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

/* ---- paths --------------------------------------------------------------------------------------- */

static char separator(const SearchHost *h) { return h->os == OS_WINDOWS ? '\\' : '/'; }

static int is_file(const SearchHost *h, const char *p)
{
    int k = h->kind(h->ctx, p);
    return k == PATH_FILE || k == PATH_EXECUTABLE;
}

static int is_dir(const SearchHost *h, const char *p) { return h->kind(h->ctx, p) == PATH_DIR; }

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

static const char *base_name(const SearchHost *h, const char *p)
{
    const char *s = last_separator(h, p);
    return s ? s + 1 : p;
}

/* Drops the last component of p in place; 0 when there is none to drop (the root or a bare name). */
static int up(const SearchHost *h, char *p)
{
    char *s = last_separator(h, p);
    if (!s || s == p)
        return 0;
    *s = '\0';
    return 1;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    if (m > n)
        return 0;
    for (size_t i = 0; i < m; ++i) { /* ASCII case-insensitive: Windows names */
        char a = s[n - m + i], b = tail[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

/* The minor version a name carries: "libpython3.12.so" / "Versions/3.12" / "python@3.12" -> 12,
 * "python312.dll" / "Python312" -> 12; -1 when none. */
static int minor_version(const char *name)
{
    int minor = -1;
    for (const char *p = name; *p; ++p) {
        if (p[0] == '3' && p[1] == '.' && p[2] >= '0' && p[2] <= '9')
            minor = atoi(p + 2);
        else if ((p[0] == 'n' || p[0] == 'N') && p[1] == '3' && p[2] >= '0' && p[2] <= '9' &&
                 (p - name >= 5) && (strncmp(p - 5, "pytho", 5) == 0 || strncmp(p - 5, "Pytho", 5) == 0))
            minor = atoi(p + 2);
    }
    return minor;
}

/* ---- one Python, described by its library ---------------------------------------------------------- */

/* PYTHONHOME of a library: on Linux and macOS a directory up to two levels above it whose
 * lib/python3.X/os.py exists (3.X from the library's name, or the framework folder Versions/3.X);
 * on Windows the DLL's own folder when it holds Lib\os.py. "" when none (Python then finds it itself). */
static void home_of_library(const SearchHost *h, const char *lib, char *home, size_t size)
{
    char dir[4096], probe[4200];
    snprintf(dir, sizeof dir, "%s", lib);
    if (!up(h, dir))
        return;
    if (h->os == OS_WINDOWS) {
        snprintf(probe, sizeof probe, "%s\\Lib\\os.py", dir);
        if (is_file(h, probe))
            snprintf(home, size, "%s", dir);
        return;
    }
    const char *base = base_name(h, lib);
    char ver[32] = "";
    if (sscanf(base, "libpython%31[0-9.]", ver) != 1) {
        if (h->os != OS_MACOS || strcmp(base, "Python") != 0 || minor_version(base_name(h, dir)) < 0)
            return;
        snprintf(ver, sizeof ver, "%s", base_name(h, dir)); /* framework: .../Versions/3.X/Python */
    }
    size_t n = strlen(ver);
    if (n && ver[n - 1] == '.')
        ver[n - 1] = '\0';
    for (int level = 0; level < 3; ++level) {
        snprintf(probe, sizeof probe, "%s/lib/python%s/os.py", dir, ver);
        if (is_file(h, probe)) {
            snprintf(home, size, "%s", dir);
            return;
        }
        if (!up(h, dir))
            return;
    }
}

/* The newest matching file of pattern (by the minor version in its name, ties: the first); 1 when found.
 * Windows skips python3.dll, the stable-ABI forwarder, for the versioned DLL it forwards to. */
static int newest_match(const SearchHost *h, const char *pattern, char *out, size_t size)
{
    char name[4096];
    int best = -2;
    for (int i = 0; h->glob(h->ctx, pattern, i, name, sizeof name); ++i) {
        int minor = minor_version(base_name(h, name));
        if (h->os == OS_WINDOWS && ends_with(name, "\\python3.dll"))
            continue;
        if (minor > best) {
            best = minor;
            snprintf(out, size, "%s", name);
        }
    }
    return best > -2;
}

/* The shared library of an installation prefix. Linux: the first lib/libpython3*.so* (or under the multiarch
 * folder); macOS: lib/libpython3*.dylib, or the framework's Python when prefix is .../Versions/3.X;
 * Windows: the newest python3X.dll in the prefix itself. */
static int library_in_prefix(const SearchHost *h, const char *prefix, char *lib, size_t size)
{
    char pat[4200];
    if (h->os == OS_WINDOWS) {
        snprintf(pat, sizeof pat, "%s\\python3*.dll", prefix);
        return newest_match(h, pat, lib, size);
    }
    if (h->os == OS_MACOS) {
        snprintf(pat, sizeof pat, "%s/Python", prefix);
        if (is_file(h, pat) && minor_version(base_name(h, prefix)) >= 0) {
            snprintf(lib, size, "%s", pat);
            return 1;
        }
        snprintf(pat, sizeof pat, "%s/lib/libpython3*.dylib", prefix);
        return newest_match(h, pat, lib, size);
    }
    const char *patterns[] = {"%s/lib/libpython3*.so*", "%s/lib/*-linux-gnu/libpython3*.so*"};
    for (int i = 0; i < 2; ++i) {
        snprintf(pat, sizeof pat, patterns[i], prefix);
        if (h->glob(h->ctx, pat, 0, lib, size))
            return 1;
    }
    return 0;
}

static int is_library_file(const SearchHost *h, const char *p)
{
    const char *base = base_name(h, p);
    if (!is_file(h, p))
        return 0;
    if (h->os == OS_WINDOWS)
        return ends_with(base, ".dll") && (strncmp(base, "python", 6) == 0 || strncmp(base, "Python", 6) == 0);
    if (h->os == OS_MACOS && strcmp(base, "Python") == 0)
        return 1; /* a framework's library */
    return strstr(p, "libpython") != NULL;
}

static int is_program(const SearchHost *h, const char *p)
{
    if (h->os == OS_WINDOWS)
        return is_file(h, p) && ends_with(p, ".exe");
    return h->kind(h->ctx, p) == PATH_EXECUTABLE;
}

/* A virtual environment at dir: setup->path = its site-packages, dir = its base installation. */
static void follow_venv(const SearchHost *h, char *dir, size_t dsize, PythonSetup *setup)
{
    char cfg[4200], text[8192], base[4096] = "", pat[4200];
    snprintf(cfg, sizeof cfg, "%s%cpyvenv.cfg", dir, separator(h));
    if (!h->read(h->ctx, cfg, text, sizeof text))
        return;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (sscanf(line, "home = %4095[^\r\n]", base) == 1)
            break;
    if (h->os == OS_WINDOWS) { /* home names the base installation's folder (python.exe beside its DLL) */
        snprintf(pat, sizeof pat, "%s\\Lib\\site-packages", dir);
        if (is_dir(h, pat))
            snprintf(setup->path, sizeof setup->path, "%s", pat);
    } else { /* home names the base's bin folder */
        char *slash = strrchr(base, '/');
        if (slash)
            *slash = '\0';
        snprintf(pat, sizeof pat, "%s/lib/python3*/site-packages", dir);
        h->glob(h->ctx, pat, 0, setup->path, sizeof setup->path);
    }
    snprintf(dir, dsize, "%s", base);
}

/* CRANE_COSIM_PYTHON: a library, a python executable (also inside a virtual environment) or a prefix. */
static int setup_from_hint(const SearchHost *h, const char *hint, PythonSetup *setup, char *why, size_t size)
{
    char dir[4096];
    memset(setup, 0, sizeof *setup);
    if (is_library_file(h, hint)) {
        snprintf(setup->lib, sizeof setup->lib, "%s", hint);
        home_of_library(h, hint, setup->home, sizeof setup->home);
        return 1;
    }
    if (is_dir(h, hint)) {
        snprintf(dir, sizeof dir, "%s", hint);
    } else if (is_program(h, hint)) {
        snprintf(dir, sizeof dir, "%s", hint);
        if (h->os == OS_WINDOWS) { /* <prefix>\python.exe, or <venv>\Scripts\python.exe */
            char cfg[4200], parent[4096];
            up(h, dir);
            snprintf(cfg, sizeof cfg, "%s\\pyvenv.cfg", dir);
            snprintf(parent, sizeof parent, "%s", dir);
            if (!is_file(h, cfg) && up(h, parent)) {
                snprintf(cfg, sizeof cfg, "%s\\pyvenv.cfg", parent);
                if (is_file(h, cfg))
                    snprintf(dir, sizeof dir, "%s", parent);
            }
        } else { /* <prefix>/bin/python */
            for (int level = 0; level < 2; ++level)
                if (!up(h, dir)) { snprintf(dir, sizeof dir, "."); break; }
        }
    } else {
        snprintf(why, size, "is neither a %s, a python executable nor a directory",
                 h->os == OS_WINDOWS ? "python3X.dll" : "libpython");
        return 0;
    }
    follow_venv(h, dir, sizeof dir, setup);
    if (!library_in_prefix(h, dir, setup->lib, sizeof setup->lib)) {
        if (h->os == OS_WINDOWS)
            snprintf(why, size, "no python3X.dll in %s", dir);
        else if (h->os == OS_MACOS)
            snprintf(why, size, "no libpython3*.dylib under %s/lib and no framework Python in %s", dir, dir);
        else
            snprintf(why, size, "no libpython3*.so under %s/lib (a Python built without --enable-shared?)", dir);
        return 0;
    }
    home_of_library(h, setup->lib, setup->home, sizeof setup->home);
    return 1;
}

static int setup_from_record(const SearchHost *h, const char *record, const char *platform, PythonSetup *setup,
                             char *why, size_t size)
{
    char entry[4096];
    memset(setup, 0, sizeof *setup);
    if (record && platform && record_value(record, "platform", 0, entry, sizeof entry) &&
        strcmp(entry, platform) != 0) {
        snprintf(why, size, "made on %.64s, this is %.64s", entry, platform);
        return 0;
    }
    if (!record || !record_value(record, "libpython", 0, setup->lib, sizeof setup->lib)) {
        snprintf(why, size, "no libpython recorded");
        return 0;
    }
    record_value(record, "home", 0, setup->home, sizeof setup->home);
    for (int i = 0; record_value(record, "path", i, entry, sizeof entry); ++i) {
        if (i)
            append(setup->path, sizeof setup->path, h->os == OS_WINDOWS ? ";" : ":");
        append(setup->path, sizeof setup->path, entry);
    }
    return 1;
}

/* ---- the usual install locations (macOS, Windows) -------------------------------------------------- */

#define MAX_INSTALLS 64

typedef struct {
    int minor;
    char lib[1024];
} Install;

static int newer_first(const void *a, const void *b)
{
    const Install *x = a, *y = b;
    return (y->minor > x->minor) - (y->minor < x->minor);
}

/* 1 when lib is in list already (a registered install found again in its folder). */
static int listed(const Install *list, int n, const char *lib)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(list[i].lib, lib) == 0)
            return 1;
    return 0;
}

/* Every match of pattern (a library, or with as_prefix a prefix holding one) into list; 3.8 or newer only. */
static void collect(const SearchHost *h, const char *pattern, int as_prefix, Install *list, int *n)
{
    char name[1024];
    for (int i = 0; *n < MAX_INSTALLS && h->glob(h->ctx, pattern, i, name, sizeof name); ++i) {
        Install *c = &list[*n];
        c->minor = minor_version(name); /* the last version in the path: .../Versions/3.X/Python too */
        if (as_prefix ? !library_in_prefix(h, name, c->lib, sizeof c->lib) : !is_file(h, name))
            continue;
        if (!as_prefix)
            snprintf(c->lib, sizeof c->lib, "%s", name);
        if (c->minor >= 8 && !listed(list, *n, c->lib))
            ++*n;
    }
}

/* Locations as patterns, also for the message: macOS framework builds (python.org, Homebrew on arm64 and
 * x86-64); Windows per-user and all-users installs of python.org's installer. */
static const char *const MACOS_LOCATIONS[] = {
    "/Library/Frameworks/Python.framework/Versions/3.*/Python",
    "/opt/homebrew/opt/python@3.*/Frameworks/Python.framework/Versions/3.*/Python",
    "/usr/local/opt/python@3.*/Frameworks/Python.framework/Versions/3.*/Python",
};

static int try_installs(const SearchHost *h, TryPython attempt, void *user, char *why, size_t why_size)
{
    Install *list = calloc(MAX_INSTALLS, sizeof *list);
    char reason[1024], where[512], install[1024], pat[1200];
    int n = 0, ok = 0;
    if (!list)
        return 0;
    if (h->os == OS_MACOS) {
        for (size_t i = 0; i < sizeof MACOS_LOCATIONS / sizeof *MACOS_LOCATIONS; ++i) {
            int before = n;
            collect(h, MACOS_LOCATIONS[i], 0, list, &n);
            qsort(list + before, (size_t)(n - before), sizeof *list, newer_first);
        }
    } else {
        int before = n;
        for (int i = 0; h->registry && h->registry(h->ctx, i, where, sizeof where, install, sizeof install); ++i) {
            size_t len = strlen(install);
            while (len && (install[len - 1] == '\\' || install[len - 1] == '/'))
                install[--len] = '\0';
            const char *ver = base_name(h, where);
            int major = 0, minor = 0, used = 0;
            /* "3.12" only: "3.12-32" is a 32-bit build, "3.13t" a free-threaded one (no limited API) */
            if (sscanf(ver, "%d.%d%n", &major, &minor, &used) != 2 || ver[used] || major != 3 || n >= MAX_INSTALLS)
                continue;
            list[n].minor = minor;
            if (library_in_prefix(h, install, list[n].lib, sizeof list[n].lib) && minor >= 8 &&
                !listed(list, n, list[n].lib))
                ++n;
        }
        qsort(list + before, (size_t)(n - before), sizeof *list, newer_first);
        const char *roots[] = {"LOCALAPPDATA", "ProgramFiles"};
        const char *tails[] = {"Programs\\Python\\Python3*", "Python3*"};
        for (int r = 0; r < 2; ++r) {
            const char *root = h->env(h->ctx, roots[r]);
            if (!root || !*root)
                continue;
            snprintf(pat, sizeof pat, "%s\\%s", root, tails[r]);
            before = n;
            collect(h, pat, 1, list, &n);
            qsort(list + before, (size_t)(n - before), sizeof *list, newer_first);
        }
    }
    for (int i = 0; i < n && !ok; ++i) {
        PythonSetup *setup = calloc(1, sizeof *setup);
        if (!setup)
            break;
        snprintf(setup->lib, sizeof setup->lib, "%s", list[i].lib);
        home_of_library(h, setup->lib, setup->home, sizeof setup->home);
        ok = attempt(user, setup, reason, sizeof reason);
        if (!ok) {
            append(why, why_size, setup->lib);
            append(why, why_size, ": ");
            append(why, why_size, reason);
            append(why, why_size, "; ");
        }
        free(setup);
    }
    if (!ok) {
        if (h->os == OS_MACOS) {
            append(why, why_size, "no usable Python in ");
            for (size_t i = 0; i < sizeof MACOS_LOCATIONS / sizeof *MACOS_LOCATIONS; ++i) {
                append(why, why_size, i ? ", " : "");
                append(why, why_size, MACOS_LOCATIONS[i]);
            }
        } else {
            const char *local = h->env(h->ctx, "LOCALAPPDATA"), *all = h->env(h->ctx, "ProgramFiles");
            snprintf(pat, sizeof pat, "no usable Python in the registry (HKCU and HKLM\\Software\\Python\\PythonCore"
                     "\\3.X\\InstallPath), %%LOCALAPPDATA%%\\Programs\\Python\\Python3* (%s) and "
                     "%%ProgramFiles%%\\Python3* (%s)", local ? local : "unset", all ? all : "unset");
            append(why, why_size, pat);
        }
    }
    free(list);
    return ok;
}

/* ---- the order ---------------------------------------------------------------------------------------- */

static const char *advice(OsKind os)
{
    switch (os) {
    case OS_WINDOWS:
        return ". Set CRANE_COSIM_PYTHON to a python3X.dll, a python.exe (also of a virtual environment) or "
               "its folder, with pythonfmu and numpy installed.";
    case OS_MACOS:
        return ". Set CRANE_COSIM_PYTHON to a libpython3.X.dylib or a framework's Python, a python executable "
               "(also of a virtual environment) or its prefix, with pythonfmu and numpy installed.";
    default:
        return ". Set CRANE_COSIM_PYTHON to a shared libpython3.X.so, a python executable "
               "(also of a virtual environment) or its prefix, with pythonfmu and numpy installed.";
    }
}

int search_python(const SearchHost *h, const char *record, const char *platform, TryPython attempt, void *user,
                  char *why, size_t why_size)
{
    char reason[1024];
    int ok = 0;
    PythonSetup *setup = calloc(1, sizeof *setup);
    if (!setup) {
        append(why, why_size, "out of memory");
        return 0;
    }
    const char *hint = h->env(h->ctx, "CRANE_COSIM_PYTHON");
    if (hint && *hint) {
        if (setup_from_hint(h, hint, setup, reason, sizeof reason) && attempt(user, setup, reason, sizeof reason)) {
            ok = 1;
            goto done;
        }
        append(why, why_size, "CRANE_COSIM_PYTHON=");
        append(why, why_size, hint);
        append(why, why_size, ": ");
        append(why, why_size, reason);
        append(why, why_size, "; ");
    } else {
        append(why, why_size, "CRANE_COSIM_PYTHON not set; ");
    }
    if (setup_from_record(h, record, platform, setup, reason, sizeof reason) &&
        attempt(user, setup, reason, sizeof reason)) {
        ok = 1;
        goto done;
    }
    append(why, why_size, "the build's record (resources/crane_cosim_runtime.txt): ");
    append(why, why_size, reason);
    if (h->os != OS_LINUX) {
        append(why, why_size, "; ");
        ok = try_installs(h, attempt, user, why, why_size);
    }
done:
    if (!ok)
        append(why, why_size, advice(h->os));
    free(setup);
    return ok;
}
