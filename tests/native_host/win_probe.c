/* A small win64 FMI host for tests/test_runtime_platforms.py (run under wine): loads an FMU's win64 binary
 * with LoadLibraryW, instantiates it with a logger that prints every message, frees what it got and
 * unloads. Prints "instance NULL" or "instance OK"; exit status 0 unless the binary or a function is
 * missing (2). Arguments: <dll> <guid> <resource URI> [times to instantiate, default 1] [options]:
 * "thread" instantiates each time from a new thread (joined before the next), "preload=<dll>" loads and
 * initializes a Python DLL in the host first (as a host that runs Python would). At the end it prints the
 * host's PYTHONHOME as the host sees it ("host PYTHONHOME=..."). */
#include <windows.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*Logger)(void *, const char *, int, const char *, const char *, ...);
typedef struct {
    Logger logger;
    void *(*allocate)(size_t, size_t);
    void (*release)(void *);
    void *step_finished;
    void *environment;
} Callbacks;
typedef void *(*Instantiate)(const char *, int, const char *, const char *, const Callbacks *, int, int);
typedef void (*FreeInstance)(void *);
typedef const char *(*GetText)(void);

static void logger(void *env, const char *name, int status, const char *category, const char *message, ...)
{
    va_list args;
    (void)env;
    printf("log %s %d %s: ", name ? name : "?", status, category ? category : "?");
    va_start(args, message);
    vprintf(message, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
}

typedef struct {
    Instantiate instantiate;
    FreeInstance free_instance;
    const char *guid, *uri;
    Callbacks cb;
} Job;

static DWORD WINAPI instantiate_once(LPVOID p)
{
    Job *job = p;
    void *instance = job->instantiate("probe", 1 /* fmi2CoSimulation */, job->guid, job->uri, &job->cb, 0, 0);
    printf("instance %s\n", instance ? "OK" : "NULL");
    fflush(stdout);
    job->free_instance(instance);
    return 0;
}

int main(int argc, char **argv)
{
    wchar_t path[4096];
    if (argc < 4 || !MultiByteToWideChar(CP_UTF8, 0, argv[1], -1, path, 4096))
        return 2;
    HMODULE lib = LoadLibraryW(path);
    if (!lib) {
        printf("LoadLibraryW failed: %lu\n", (unsigned long)GetLastError());
        return 2;
    }
    Instantiate instantiate = (Instantiate)(void (*)(void))GetProcAddress(lib, "fmi2Instantiate");
    FreeInstance free_instance = (FreeInstance)(void (*)(void))GetProcAddress(lib, "fmi2FreeInstance");
    GetText version = (GetText)(void (*)(void))GetProcAddress(lib, "fmi2GetVersion");
    if (!instantiate || !free_instance || !version)
        return 2;
    printf("version %s\n", version());
    int times = argc > 4 ? atoi(argv[4]) : 1, threads = 0;
    for (int i = 5; i < argc; ++i) {
        if (strcmp(argv[i], "thread") == 0)
            threads = 1;
        if (strncmp(argv[i], "preload=", 8) == 0) {
            wchar_t py[4096];
            MultiByteToWideChar(CP_UTF8, 0, argv[i] + 8, -1, py, 4096);
            HMODULE python = LoadLibraryW(py);
            FARPROC found = python ? GetProcAddress(python, "Py_InitializeEx") : NULL;
            void (*initialize)(int) = (void (*)(int))(void (*)(void))found;
            if (!initialize)
                return 2;
            initialize(0);
        }
    }
    Job job = {instantiate, free_instance, argv[2], argv[3], {logger, calloc, free, NULL, NULL}};
    for (int i = 0; i < times; ++i) {
        if (threads) {
            HANDLE t = CreateThread(NULL, 0, instantiate_once, &job, 0, NULL);
            if (!t)
                return 2;
            WaitForSingleObject(t, INFINITE);
            CloseHandle(t);
        } else {
            instantiate_once(&job);
        }
    }
    const char *home = getenv("PYTHONHOME");
    printf("host PYTHONHOME=%s\n", home ? home : "unset");
    free_instance(NULL);
    FreeLibrary(lib);
    printf("done\n");
    return 0;
}
