/* One CPython described by its program (also one of a virtual environment), library or installation folder (see
 * pysetup.h). Paths are UTF-8; Windows paths use '\'. Every file-system question goes through the SearchHost
 * hooks (pypaths.c, the floor below); whether the Python suits the FMU is pyneeds.c's question. */
#include "pysetup.h"

#include "pypaths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one Python, described by its library ---------------------------------------------------------- */

/* PYTHONHOME of a library: on Linux and macOS a directory up to two levels above it whose
 * lib/python3.X/os.py (or lib64/: Fedora) exists (3.X from the library's name, or the framework folder
 * Versions/3.X); on Windows the DLL's own folder when it holds Lib\os.py. "" when none (Python finds it). */
static void home_of_library(const SearchHost *h, const char *lib, char *home, size_t size)
{
    char dir[4096], probe[4200];
    snprintf(dir, sizeof dir, "%s", lib);
    if (!path_up(h, dir))
        return;
    if (h->os == OS_WINDOWS) {
        snprintf(probe, sizeof probe, "%s\\Lib\\os.py", dir);
        if (is_file(h, probe))
            snprintf(home, size, "%s", dir);
        return;
    }
    int minor = name_minor(base_name(h, lib));
    if (minor < 0 && h->os == OS_MACOS && strcmp(base_name(h, lib), "Python") == 0)
        minor = name_minor(base_name(h, dir)); /* framework: .../Versions/3.X/Python */
    if (minor < 0)
        return;
    for (int level = 0; level < 3; ++level) {
        for (int lib64 = 0; lib64 < 2; ++lib64) {
            snprintf(probe, sizeof probe, "%s/%s/python3.%d/os.py", dir, lib64 ? "lib64" : "lib", minor);
            if (is_file(h, probe)) {
                snprintf(home, size, "%s", dir);
                return;
            }
        }
        if (!path_up(h, dir))
            return;
    }
}

/* The newest match of pattern (by the minor version in its name; ties: the first by name) that is 3.wanted
 * (wanted -1: any); 1 when found. Windows skips python3.dll, the stable-ABI forwarder, for the versioned DLL. */
static int newest_match(const SearchHost *h, const char *pattern, int wanted, char *out, size_t size)
{
    char name[4096];
    int best = -1;
    for (int i = 0; h->glob(h->ctx, pattern, i, name, sizeof name); ++i) {
        int minor = name_minor(base_name(h, name));
        if (minor < 0 || (wanted >= 0 && minor != wanted) || minor <= best)
            continue;
        best = minor;
        snprintf(out, size, "%s", name);
    }
    return best >= 0;
}

int library_in_prefix(const SearchHost *h, const char *prefix, int minor, char *lib, size_t size)
{
    char pat[4200];
    if (h->os == OS_WINDOWS) {
        snprintf(pat, sizeof pat, "%s\\python3*.dll", prefix);
        return newest_match(h, pat, minor, lib, size);
    }
    if (h->os == OS_MACOS) {
        int own = name_minor(base_name(h, prefix)); /* a framework's .../Versions/3.X */
        snprintf(pat, sizeof pat, "%s/Python", prefix);
        if (own >= 0 && (minor < 0 || minor == own) && is_file(h, pat)) {
            snprintf(lib, size, "%s", pat);
            return 1;
        }
        snprintf(pat, sizeof pat, "%s/lib/libpython3*.dylib", prefix);
        return newest_match(h, pat, minor, lib, size);
    }
    const char *folders[] = {"lib", "lib64", "lib/*-linux-gnu"}; /* lib64: Fedora; multiarch: Debian, Ubuntu */
    for (int i = 0; i < 3; ++i) {
        snprintf(pat, sizeof pat, "%s/%s/libpython3*.so*", prefix, folders[i]);
        if (newest_match(h, pat, minor, lib, size))
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
        return ends_with_nocase(base, ".dll") && (strncmp(base, "python", 6) == 0 || strncmp(base, "Python", 6) == 0);
    if (h->os == OS_MACOS && strcmp(base, "Python") == 0)
        return 1; /* a framework's library */
    return strstr(base, "libpython") != NULL;
}

static void missing_library(const SearchHost *h, const char *prefix, int minor, char *why, size_t size)
{
    char version[16] = "3*";
    if (minor >= 0)
        snprintf(version, sizeof version, "3.%d", minor);
    if (h->os == OS_WINDOWS && minor >= 0)
        snprintf(why, size, "no python3%d.dll in %s", minor, prefix);
    else if (h->os == OS_WINDOWS)
        snprintf(why, size, "no python3X.dll in %s", prefix);
    else if (h->os == OS_MACOS)
        snprintf(why, size, "no libpython%s.dylib under %s/lib and no framework Python in %s", version, prefix,
                 prefix);
    else
        snprintf(why, size, "no libpython%s.so under %s/lib, lib64 or lib/*-linux-gnu (a Python built without "
                 "--enable-shared?)", version, prefix[0] ? prefix : "/");
}

void setup_from_library(const SearchHost *h, const char *lib, PythonSetup *setup)
{
    char exe[4200], dir[4096];
    memset(setup, 0, sizeof *setup);
    snprintf(setup->lib, sizeof setup->lib, "%s", lib);
    setup->minor = name_minor(base_name(h, lib));
    snprintf(dir, sizeof dir, "%s", lib);
    if (setup->minor < 0 && path_up(h, dir))
        setup->minor = name_minor(base_name(h, dir)); /* a framework's .../Versions/3.X/Python */
    home_of_library(h, lib, setup->home, sizeof setup->home);
    if (!setup->home[0])
        return;
    /* the program beside it, so that sys.executable names it (nothing when there is none) */
    if (h->os == OS_WINDOWS)
        snprintf(exe, sizeof exe, "%s\\python.exe", setup->home);
    else
        snprintf(exe, sizeof exe, "%s/bin/python3.%d", setup->home, setup->minor);
    if (is_program(h, exe))
        snprintf(setup->exe, sizeof setup->exe, "%s", exe);
}

/* ---- virtual environments and programs ---------------------------------------------------------------- */

static char *trimmed(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static int is_word(const char *s, const char *lower)
{
    for (; *s && *lower; ++s, ++lower)
        if ((*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s) != *lower)
            return 0;
    return !*s && !*lower;
}

/* folder's pyvenv.cfg, read as CPython reads it (key = value, keys in any case): the base installation's folder
 * (`home`), the minor version (`version` or virtualenv's `version_info`; -1 when neither) and
 * include-system-site-packages; 1 when folder holds one. */
static int read_venv(const SearchHost *h, const char *folder, char *home, size_t size, int *minor, int *system_site)
{
    char cfg[4200], text[8192];
    snprintf(cfg, sizeof cfg, "%s%cpyvenv.cfg", folder, path_separator(h));
    if (!h->read(h->ctx, cfg, text, sizeof text))
        return 0;
    home[0] = '\0';
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n'), *eq = strchr(line, '=');
        if (next)
            *next++ = '\0';
        if (eq) {
            int major = 0, m = 0;
            *eq = '\0';
            char *key = trimmed(line), *value = trimmed(eq + 1);
            if (is_word(key, "home"))
                snprintf(home, size, "%s", value);
            else if ((is_word(key, "version") || is_word(key, "version_info")) &&
                     sscanf(value, "%d.%d", &major, &m) == 2 && major == 3)
                *minor = m;
            else if (is_word(key, "include-system-site-packages"))
                *system_site = is_word(value, "true");
        }
        line = next;
    }
    return 1;
}

int setup_from_program(const SearchHost *h, const char *program, PythonSetup *setup, char *why, size_t size)
{
    char dir[4096], above[4096], base[4096], real[4096], prefix[4096];
    memset(setup, 0, sizeof *setup);
    setup->minor = -1;
    snprintf(setup->exe, sizeof setup->exe, "%s", program);
    snprintf(dir, sizeof dir, "%s", program);
    path_up(h, dir); /* the program's folder */
    snprintf(above, sizeof above, "%s", dir);
    /* CPython's order: pyvenv.cfg one level above the program's folder, then beside the program */
    const char *venv = NULL;
    if (path_up(h, above) && read_venv(h, above, base, sizeof base, &setup->minor, &setup->system_site))
        venv = above;
    else if (read_venv(h, dir, base, sizeof base, &setup->minor, &setup->system_site))
        venv = dir;
    if (venv) {
        snprintf(setup->venv, sizeof setup->venv, "%s", venv);
        if (!base[0]) {
            snprintf(why, size, "%.3000s%cpyvenv.cfg names no home", venv, path_separator(h));
            return 0;
        }
        snprintf(prefix, sizeof prefix, "%s", base);
        if (h->os != OS_WINDOWS) /* home names the base's bin folder (Windows: the folder of its python.exe) */
            path_up(h, prefix);
        if (setup->minor < 0)
            setup->minor = name_minor(base_name(h, program));
    } else {
        /* links lead to the installation: python3 -> python3.12, /usr/local/bin/python3 -> a framework's */
        if (!h->resolve(h->ctx, program, real, sizeof real))
            snprintf(real, sizeof real, "%s", program);
        setup->minor = name_minor(base_name(h, real));
        if (setup->minor < 0)
            setup->minor = name_minor(base_name(h, program));
        snprintf(prefix, sizeof prefix, "%s", real);
        path_up(h, prefix);                         /* Windows: <prefix>\python.exe */
        if (h->os != OS_WINDOWS && !path_up(h, prefix)) /* elsewhere <prefix>/bin/python3; /bin: the root */
            prefix[0] = '\0';
    }
    if (!library_in_prefix(h, prefix, setup->minor, setup->lib, sizeof setup->lib)) {
        missing_library(h, prefix, setup->minor, why, size);
        return 0;
    }
    if (name_minor(base_name(h, setup->lib)) >= 0)
        setup->minor = name_minor(base_name(h, setup->lib));
    home_of_library(h, setup->lib, setup->home, sizeof setup->home);
    return 1;
}

int setup_from_prefix(const SearchHost *h, const char *prefix, int minor, PythonSetup *setup, char *why, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s%cpyvenv.cfg", prefix, path_separator(h));
    if (is_file(h, path)) { /* a virtual environment: as its program */
        snprintf(path, sizeof path, h->os == OS_WINDOWS ? "%s\\Scripts\\python.exe" : "%s/bin/python3", prefix);
        return setup_from_program(h, path, setup, why, size);
    }
    if (!library_in_prefix(h, prefix, minor, path, sizeof path)) {
        missing_library(h, prefix, minor, why, size);
        return 0;
    }
    setup_from_library(h, path, setup);
    return 1;
}

/* ---- CRANE_COSIM_PYTHON ------------------------------------------------------------------------------ */

/* CRANE_COSIM_PYTHON: a library, a python program (also of a virtual environment) or a folder. */
int setup_from_hint(const SearchHost *h, const char *hint, PythonSetup *setup, char *why, size_t size)
{
    if (is_library_file(h, hint)) {
        setup_from_library(h, hint, setup);
        return 1;
    }
    if (is_dir(h, hint))
        return setup_from_prefix(h, hint, -1, setup, why, size);
    if (is_program(h, hint))
        return setup_from_program(h, hint, setup, why, size);
    snprintf(why, size, "is neither a %s, a python executable nor a directory",
             h->os == OS_WINDOWS ? "python3X.dll" : "libpython");
    return 0;
}
