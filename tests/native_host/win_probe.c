/* A small win64 FMI host for tests/test_runtime_platforms.py (run under wine): loads an FMU's win64 binary
 * with LoadLibraryW, instantiates it with a logger that prints every message, frees what it got and
 * unloads. Prints "instance NULL" or "instance OK"; exit status 0 unless the binary or a function is
 * missing (2). Arguments: <dll> <guid> <resource URI> [times to instantiate, default 1]. */
#include <windows.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
    Callbacks cb = {logger, calloc, free, NULL, NULL};
    int times = argc > 4 ? atoi(argv[4]) : 1;
    for (int i = 0; i < times; ++i) {
        void *instance = instantiate("probe", 1 /* fmi2CoSimulation */, argv[2], argv[3], &cb, 0, 0);
        printf("instance %s\n", instance ? "OK" : "NULL");
        fflush(stdout);
        free_instance(instance);
    }
    free_instance(NULL);
    FreeLibrary(lib);
    printf("done\n");
    return 0;
}
