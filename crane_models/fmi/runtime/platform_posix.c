/* platform.h for Linux and macOS: dlopen, pthreads, glob. */
#if !defined(_WIN32)
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT and RTLD_NODELETE with glibc */
#include "platform.h"

#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#if defined(__linux__)
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#else
#include <fcntl.h>
#include <semaphore.h>
#endif

void *plat_load(const char *path, char *err, size_t size)
{
    /* RTLD_GLOBAL: extension modules (numpy, the kernel) resolve libpython's symbols through it. */
    void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        snprintf(err, size, "%s", dlerror());
    return lib;
}

void *plat_symbol(void *lib, const char *name) { return dlsym(lib, name); }

int plat_set_program_name(void *lib, const char *path)
{
    wchar_t *(*decode)(const char *, size_t *);
    void (*set_name)(const wchar_t *);
    void (*release)(void *);
    *(void **)(&decode) = dlsym(lib, "Py_DecodeLocale");
    *(void **)(&set_name) = dlsym(lib, "Py_SetProgramName");
    *(void **)(&release) = dlsym(lib, "PyMem_RawFree");
    wchar_t *wide = decode && set_name ? decode(path, NULL) : NULL;
    if (!wide)
        return 0;
    set_name(wide); /* CPython keeps a copy */
    if (release)
        release(wide);
    return 1;
}

int plat_running_python(void **lib)
{
    int (*running)(void);
    *(void **)(&running) = dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    *lib = RTLD_DEFAULT;
    return running && running();
}

/* Any object of this library: dladdr on it names the library's file. */
static const char self_anchor = 0;

void plat_pin_self(void)
{
    Dl_info info;
    if (dladdr(&self_anchor, &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
}

void plat_own_path(char *out, size_t size)
{
    Dl_info info;
    out[0] = '\0';
    if (dladdr(&self_anchor, &info) && info.dli_fname)
        snprintf(out, size, "%s", info.dli_fname);
}

FILE *plat_fopen(const char *path, const char *mode) { return fopen(path, mode); }

char *plat_swap_env(const char *name, const char *value)
{
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    if (value && *value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return saved;
}

void plat_restore_env(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
void plat_lock(void) { pthread_mutex_lock(&g_lock); }
void plat_unlock(void) { pthread_mutex_unlock(&g_lock); }

/* The process-wide lock (platform.h). Held by at most one thread of this copy at a time (under g_lock). */
#if defined(__linux__)
/* Linux: binding an abstract-namespace socket is atomic and its name vanishes with the socket -- also when the
 * process dies inside the lock -- so nothing is left on disk and no stale lock can block a later process. */
static int g_process_fd = -1;

void plat_process_lock(void)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "crane-cosim-python-%ld", (long)getpid());
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return; /* no sockets (a sandbox): plat_lock only */
    struct timespec pause = {0, 1000000}; /* 1 ms: the holder is starting Python, which takes ~20-100 ms */
    while (bind(fd, (struct sockaddr *)&addr, len) != 0) {
        if (errno != EADDRINUSE && errno != EINTR) {
            close(fd);
            return;
        }
        nanosleep(&pause, NULL);
    }
    g_process_fd = fd;
}

void plat_process_unlock(int python_runs)
{
    (void)python_runs;
    if (g_process_fd >= 0)
        close(g_process_fd);
    g_process_fd = -1;
}
#else
/* macOS: a named semaphore (no abstract sockets). Its name outlives the process unless removed: removed once Python
 * runs (a later copy finds the running Python before it could need the lock), kept after a failed start so that
 * copies still trying share it. */
static sem_t *g_process_sem = NULL;

static void process_lock_name(char *name, size_t size)
{
    snprintf(name, size, "/crane-cosim-py-%ld", (long)getpid()); /* macOS: at most 31 characters */
}

void plat_process_lock(void)
{
    char name[64];
    process_lock_name(name, sizeof name);
    sem_t *s = sem_open(name, O_CREAT, 0600, 1);
    if (s == SEM_FAILED)
        return;
    while (sem_wait(s) != 0) {
    }
    g_process_sem = s;
}

void plat_process_unlock(int python_runs)
{
    char name[64];
    if (!g_process_sem)
        return;
    if (python_runs) {
        process_lock_name(name, sizeof name);
        sem_unlink(name);
    }
    sem_post(g_process_sem);
    sem_close(g_process_sem);
    g_process_sem = NULL;
}
#endif

static pthread_key_t g_thread_key;

void plat_thread_init(void (*at_exit)(void *)) { pthread_key_create(&g_thread_key, at_exit); }
void *plat_thread_value(void) { return pthread_getspecific(g_thread_key); }
void plat_set_thread_value(void *value) { pthread_setspecific(g_thread_key, value); }

/* pthread key destructors never run at exit() (only when a thread ends), so never during shutdown. */
int plat_process_exiting(void) { return 0; }

/* ---- search hooks ------------------------------------------------------------------------------- */

static int kind(void *ctx, const char *p)
{
    struct stat s;
    (void)ctx;
    if (stat(p, &s) != 0)
        return PATH_MISSING;
    if (S_ISDIR(s.st_mode))
        return PATH_DIR;
    if (!S_ISREG(s.st_mode))
        return PATH_MISSING;
    return access(p, X_OK) == 0 ? PATH_EXECUTABLE : PATH_FILE;
}

static int glob_nth(void *ctx, const char *pattern, int nth, char *out, size_t size)
{
    glob_t g;
    int found = 0;
    (void)ctx;
    if (glob(pattern, 0, NULL, &g) == 0 && (size_t)nth < g.gl_pathc) { /* sorted by name */
        snprintf(out, size, "%s", g.gl_pathv[nth]);
        found = 1;
    }
    globfree(&g);
    return found;
}

static int read_small(void *ctx, const char *path, char *buf, size_t size)
{
    (void)ctx;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 1;
}

static const char *env(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

static int resolve(void *ctx, const char *path, char *out, size_t size)
{
    char *real = realpath(path, NULL);
    (void)ctx;
    if (!real)
        return 0;
    snprintf(out, size, "%s", real);
    free(real);
    return 1;
}

void plat_search_host(SearchHost *host)
{
    SearchHost h = {HOST_OS, NULL, kind, glob_nth, read_small, env, NULL, resolve};
    *host = h;
}

void plat_search_release(SearchHost *host) { (void)host; }

#else
typedef int platform_posix_unused; /* ISO C: a translation unit is not empty */
#endif
