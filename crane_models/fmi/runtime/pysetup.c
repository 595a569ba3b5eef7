/* One CPython described by its program (also one of a virtual environment), library or installation folder, and
 * whether it suits the FMU (see pysetup.h). Paths are UTF-8; Windows paths use '\'. Every file-system question
 * goes through the SearchHost hooks. */
#include "pysetup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- paths --------------------------------------------------------------------------------------- */

static char separator(const SearchHost *h) { return h->os == OS_WINDOWS ? '\\' : '/'; }

static int is_file(const SearchHost *h, const char *p)
{
    int k = h->kind(h->ctx, p);
    return k == PATH_FILE || k == PATH_EXECUTABLE;
}

static int is_dir(const SearchHost *h, const char *p) { return h->kind(h->ctx, p) == PATH_DIR; }

static int ends_with_nocase(const char *s, const char *tail)
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
static int up(const SearchHost *h, char *p)
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

/* ---- one Python, described by its library ---------------------------------------------------------- */

/* PYTHONHOME of a library: on Linux and macOS a directory up to two levels above it whose
 * lib/python3.X/os.py (or lib64/: Fedora) exists (3.X from the library's name, or the framework folder
 * Versions/3.X); on Windows the DLL's own folder when it holds Lib\os.py. "" when none (Python finds it). */
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
        if (!up(h, dir))
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
    if (setup->minor < 0 && up(h, dir))
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
    snprintf(cfg, sizeof cfg, "%s%cpyvenv.cfg", folder, separator(h));
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
    up(h, dir); /* the program's folder */
    snprintf(above, sizeof above, "%s", dir);
    /* CPython's order: pyvenv.cfg one level above the program's folder, then beside the program */
    const char *venv = NULL;
    if (up(h, above) && read_venv(h, above, base, sizeof base, &setup->minor, &setup->system_site))
        venv = above;
    else if (read_venv(h, dir, base, sizeof base, &setup->minor, &setup->system_site))
        venv = dir;
    if (venv) {
        snprintf(setup->venv, sizeof setup->venv, "%s", venv);
        if (!base[0]) {
            snprintf(why, size, "%.3000s%cpyvenv.cfg names no home", venv, separator(h));
            return 0;
        }
        snprintf(prefix, sizeof prefix, "%s", base);
        if (h->os != OS_WINDOWS) /* home names the base's bin folder (Windows: the folder of its python.exe) */
            up(h, prefix);
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
        up(h, prefix);                              /* Windows: <prefix>\python.exe */
        if (h->os != OS_WINDOWS && !up(h, prefix)) /* elsewhere <prefix>/bin/python3; /bin: the root */
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
    snprintf(path, sizeof path, "%s%cpyvenv.cfg", prefix, separator(h));
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

/* ---- does it suit the FMU -------------------------------------------------------------------------- */

/* The site-packages folders a Python's site module uses (no user site: the runtime sets PYTHONNOUSERSITE):
 * the virtual environment's, and its base's only with include-system-site-packages; on Debian and Ubuntu also
 * dist-packages (their packages in lib/python3, pip's in local/lib/python3.X). */
static int site_folders(const SearchHost *h, const PythonSetup *s, char folders[][4200], int max)
{
    const char *where[2] = {s->venv[0] ? s->venv : s->home, s->venv[0] && s->system_site ? s->home : ""};
    const char *posix[] = {"%s/lib/python3.%d/site-packages", "%s/lib64/python3.%d/site-packages",
                           "%s/local/lib/python3.%d/dist-packages", "%s/lib/python3/dist-packages"};
    int n = 0;
    for (int w = 0; w < 2; ++w) {
        if (!where[w][0])
            continue;
        if (h->os == OS_WINDOWS && n < max) {
            snprintf(folders[n++], 4200, "%s\\Lib\\site-packages", where[w]);
            continue;
        }
        int only_venv = where[w] == s->venv; /* a venv has lib/python3.X/site-packages alone */
        for (int i = 0; i < (only_venv ? 2 : 4) && n < max; ++i)
            if (s->minor >= 0 || i == 3)
                snprintf(folders[n++], 4200, posix[i], where[w], s->minor);
    }
    return n;
}

int usable(const SearchHost *h, const Needs *needs, const PythonSetup *setup, int check_packages, char *why,
           size_t size)
{
    char folders[8][4200], name[96], bound[96], probe[4400];
    if (setup->minor >= 0 && setup->minor < needs->min_minor) {
        snprintf(why, size, "Python 3.%d is older than the 3.%d this FMU needs", setup->minor, needs->min_minor);
        return 0;
    }
    int n = check_packages ? site_folders(h, setup, folders, 8) : 0;
    for (int p = 0; check_packages && p < needs->n_packages; ++p) {
        requirement_parts(needs->packages[p], name, sizeof name, bound, sizeof bound);
        int found = 0;
        for (int i = 0; i < n && !found; ++i) {
            snprintf(probe, sizeof probe, "%s%c%s", folders[i], separator(h), name);
            found = is_dir(h, probe);
        }
        if (!found) {
            snprintf(why, size, "%s is not in its site-packages (", name);
            for (int i = 0; i < n; ++i) {
                search_append(why, size, i ? ", " : "");
                search_append(why, size, folders[i]);
            }
            search_append(why, size, n ? ")" : "unknown: no PYTHONHOME found)");
            return 0;
        }
    }
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
