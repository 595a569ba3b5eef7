/* platform.h for Windows: LoadLibraryExW, fiber-local storage (a destructor at thread exit), wide-character
 * file names converted from UTF-8, and the py launcher's registry keys for the search. */
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include "platform.h"

#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define WPATH 4096

static int to_wide(const char *s, wchar_t *out, int size)
{
    return MultiByteToWideChar(CP_UTF8, 0, s, -1, out, size) > 0;
}

static int to_utf8(const wchar_t *s, char *out, int size)
{
    return WideCharToMultiByte(CP_UTF8, 0, s, -1, out, size, NULL, NULL) > 0;
}

void *plat_load(const char *path, char *err, size_t size)
{
    wchar_t w[WPATH];
    if (!to_wide(path, w, WPATH)) {
        snprintf(err, size, "not a UTF-8 path");
        return NULL;
    }
    /* the DLL's own folder first for its dependencies (vcruntime140.dll beside python3X.dll) */
    HMODULE lib = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!lib)
        snprintf(err, size, "LoadLibraryExW failed (Windows error %lu)", (unsigned long)GetLastError());
    return lib;
}

void *plat_symbol(void *lib, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void *p;
    memcpy(&p, &f, sizeof p); /* a data symbol (_Py_NoneStruct) comes back as a FARPROC too */
    return p;
}

int plat_set_program_name(void *lib, const char *path)
{
    wchar_t wide[WPATH];
    void (*set_name)(const wchar_t *);
    void *f = plat_symbol(lib, "Py_SetProgramName");
    memcpy(&set_name, &f, sizeof f);
    if (!set_name || !to_wide(path, wide, WPATH))
        return 0;
    set_name(wide); /* CPython keeps a copy */
    return 1;
}

int plat_running_python(void **lib)
{
    for (int minor = 40; minor >= 8; --minor) { /* python3X.dll, newest first: one per process in practice */
        wchar_t name[32];
        swprintf(name, 32, L"python3%d.dll", minor);
        HMODULE m = GetModuleHandleW(name);
        int (*running)(void);
        void *f = m ? plat_symbol(m, "Py_IsInitialized") : NULL;
        memcpy(&running, &f, sizeof f);
        if (running && running()) {
            *lib = m;
            return 1;
        }
    }
    return 0;
}

static const char self_anchor = 0;

void plat_pin_self(void)
{
    HMODULE self;
    GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                       (LPCWSTR)(const void *)&self_anchor, &self);
}

void plat_own_path(char *out, size_t size)
{
    HMODULE self;
    wchar_t w[WPATH];
    out[0] = '\0';
    if (GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                           (LPCWSTR)(const void *)&self_anchor, &self) &&
        GetModuleFileNameW(self, w, WPATH) > 0 && !to_utf8(w, out, (int)size))
        out[0] = '\0';
}

FILE *plat_fopen(const char *path, const char *mode)
{
    wchar_t w[WPATH], m[16];
    if (!to_wide(path, w, WPATH) || !to_wide(mode, m, 16))
        return NULL;
    return _wfopen(w, m);
}

/* Python reads PYTHONHOME/PYTHONPATH with _wgetenv from the universal C runtime, which this DLL shares. */
char *plat_swap_env(const char *name, const char *value)
{
    wchar_t wname[64], wvalue[WPATH * 4];
    char *saved = NULL;
    if (!to_wide(name, wname, 64))
        return NULL;
    const wchar_t *old = _wgetenv(wname);
    if (old) {
        saved = malloc(WPATH * 4);
        if (saved && !to_utf8(old, saved, WPATH * 4))
            saved[0] = '\0';
    }
    if (!value || !*value || !to_wide(value, wvalue, WPATH * 4))
        wvalue[0] = L'\0';
    _wputenv_s(wname, wvalue); /* "" removes the variable */
    return saved;
}

void plat_restore_env(const char *name, char *saved)
{
    wchar_t wname[64], wvalue[WPATH * 4];
    if (to_wide(name, wname, 64)) {
        if (!saved || !to_wide(saved, wvalue, WPATH * 4))
            wvalue[0] = L'\0';
        _wputenv_s(wname, wvalue);
    }
    free(saved);
}

static SRWLOCK g_lock = SRWLOCK_INIT;
void plat_lock(void) { AcquireSRWLockExclusive(&g_lock); }
void plat_unlock(void) { ReleaseSRWLockExclusive(&g_lock); }

/* The process-wide lock (platform.h): a named mutex in the session's namespace, named after the process, which
 * Windows removes with its last handle (also when the process dies: the wait then returns WAIT_ABANDONED, still
 * ownership). */
static HANDLE g_process_mutex = NULL;

void plat_process_lock(void)
{
    wchar_t name[64];
    swprintf(name, 64, L"Local\\crane-cosim-python-%lu", (unsigned long)GetCurrentProcessId());
    HANDLE m = CreateMutexW(NULL, FALSE, name);
    if (!m)
        return;
    DWORD got = WaitForSingleObject(m, INFINITE);
    if (got != WAIT_OBJECT_0 && got != WAIT_ABANDONED) {
        CloseHandle(m);
        return;
    }
    g_process_mutex = m;
}

void plat_process_unlock(int python_runs)
{
    (void)python_runs;
    if (!g_process_mutex)
        return;
    ReleaseMutex(g_process_mutex);
    CloseHandle(g_process_mutex);
    g_process_mutex = NULL;
}

/* Fiber-local storage: unlike TlsAlloc it calls back when a thread ends, outside DllMain. */
static DWORD g_fls = FLS_OUT_OF_INDEXES;
static void (*g_at_exit)(void *);

static VOID WINAPI thread_ends(PVOID value)
{
    if (value && g_at_exit)
        g_at_exit(value);
}

void plat_thread_init(void (*at_exit)(void *))
{
    g_at_exit = at_exit;
    g_fls = FlsAlloc(thread_ends);
}

void *plat_thread_value(void) { return g_fls == FLS_OUT_OF_INDEXES ? NULL : FlsGetValue(g_fls); }
void plat_set_thread_value(void *value)
{
    if (g_fls != FLS_OUT_OF_INDEXES)
        FlsSetValue(g_fls, value);
}

int plat_process_exiting(void)
{
    BOOLEAN (NTAPI *in_progress)(void) = NULL;
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    void *f = ntdll ? plat_symbol(ntdll, "RtlDllShutdownInProgress") : NULL;
    memcpy(&in_progress, &f, sizeof f);
    return in_progress ? in_progress() != 0 : 0;
}

/* ---- search hooks ------------------------------------------------------------------------------- */

typedef struct {
    char value[4][WPATH]; /* the last environment values read (the search reads three names at most) */
    int next;
} EnvCache;

static int kind(void *ctx, const char *p)
{
    wchar_t w[WPATH];
    (void)ctx;
    if (!to_wide(p, w, WPATH))
        return PATH_MISSING;
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES)
        return PATH_MISSING;
    return (a & FILE_ATTRIBUTE_DIRECTORY) ? PATH_DIR : PATH_FILE;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Wildcards in the last component only (the search's Windows patterns). */
static int glob_nth(void *ctx, const char *pattern, int nth, char *out, size_t size)
{
    wchar_t w[WPATH];
    WIN32_FIND_DATAW fd;
    char *names[256], dir[WPATH];
    int n = 0, found = 0;
    (void)ctx;
    const char *slash = strrchr(pattern, '\\');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - pattern) : 0, pattern);
    if (!to_wide(pattern, w, WPATH))
        return 0;
    HANDLE f = FindFirstFileW(w, &fd);
    if (f == INVALID_HANDLE_VALUE)
        return 0;
    do {
        char name[MAX_PATH * 4];
        if (wcscmp(fd.cFileName, L".") && wcscmp(fd.cFileName, L"..") && to_utf8(fd.cFileName, name, sizeof name))
            names[n] = _strdup(name), n += names[n] != NULL;
    } while (n < 256 && FindNextFileW(f, &fd));
    FindClose(f);
    qsort(names, (size_t)n, sizeof *names, by_name);
    if (nth < n) {
        snprintf(out, size, "%s%s%s", dir, slash ? "\\" : "", names[nth]);
        found = 1;
    }
    for (int i = 0; i < n; ++i)
        free(names[i]);
    return found;
}

static int read_small(void *ctx, const char *path, char *buf, size_t size)
{
    (void)ctx;
    FILE *f = plat_fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 1;
}

static const char *env(void *ctx, const char *name)
{
    EnvCache *cache = ctx;
    wchar_t wname[64], w[WPATH];
    if (!cache || !to_wide(name, wname, 64))
        return NULL;
    DWORD n = GetEnvironmentVariableW(wname, w, WPATH);
    if (n == 0 || n >= WPATH)
        return NULL;
    char *out = cache->value[cache->next];
    cache->next = (cache->next + 1) % 4;
    return to_utf8(w, out, WPATH) ? out : NULL;
}

/* The nth PythonCore entry with an InstallPath, HKCU before HKLM (64-bit view). */
static int registry(void *ctx, int nth, char *where, size_t wsize, char *install, size_t isize)
{
    static const wchar_t *const key = L"Software\\Python\\PythonCore";
    HKEY hives[2] = {HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE};
    const char *names[2] = {"HKCU", "HKLM"};
    (void)ctx;
    for (int i = 0; i < 2; ++i) {
        HKEY core;
        if (RegOpenKeyExW(hives[i], key, 0, KEY_READ | KEY_WOW64_64KEY, &core) != ERROR_SUCCESS)
            continue;
        wchar_t version[64], path[WPATH], sub[128];
        for (DWORD k = 0;; ++k) {
            DWORD vlen = 64, bytes = sizeof path;
            if (RegEnumKeyExW(core, k, version, &vlen, NULL, NULL, NULL, NULL) != ERROR_SUCCESS)
                break;
            swprintf(sub, 128, L"%ls\\InstallPath", version);
            if (RegGetValueW(core, sub, NULL, RRF_RT_REG_SZ, NULL, path, &bytes) != ERROR_SUCCESS)
                continue;
            if (nth-- == 0) {
                char v[256];
                to_utf8(version, v, sizeof v);
                snprintf(where, wsize, "%s\\Software\\Python\\PythonCore\\%s", names[i], v);
                to_utf8(path, install, (int)isize);
                RegCloseKey(core);
                return 1;
            }
        }
        RegCloseKey(core);
    }
    return 0;
}

/* Links do not lead to a Python's installation on Windows: the path as it is. */
static int resolve(void *ctx, const char *path, char *out, size_t size)
{
    if (kind(ctx, path) == PATH_MISSING)
        return 0;
    snprintf(out, size, "%s", path);
    return 1;
}

void plat_search_host(SearchHost *host)
{
    SearchHost h = {OS_WINDOWS, calloc(1, sizeof(EnvCache)), kind, glob_nth, read_small, env, registry, resolve};
    *host = h;
}

void plat_search_release(SearchHost *host)
{
    free(host->ctx);
    host->ctx = NULL;
}

#else
typedef int platform_windows_unused; /* ISO C: a translation unit is not empty */
#endif
