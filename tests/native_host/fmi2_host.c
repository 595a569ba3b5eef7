/* A plain C FMI 2.0 co-simulation host for the tests and the benchmark: loads an extracted FMU's binary
 * with dlopen and runs a script of FMI calls read from stdin, one call per line, printing one result
 * line per call ("<command> <status> [values]") on stdout and the FMU's log messages on stderr.
 *
 *   usage: fmi2_host <unzipped FMU dir> <modelIdentifier>    (script on stdin)
 *
 * Commands (value references and values as numbers):
 *   instantiate <guid> [cs|me]       setup <start>          enter          exit
 *   set_real <vr> <x> ...            set_integer <vr> <i>   get_real <vr> ...   get_integer <vr> ...
 *   step <t> <h>                     terminate              reset          free
 *   save | restore | free_state      serialize <extra bytes beyond the reported size, may be < 0>
 *   deserialize_garbage | deserialize_last
 *   bench <n> <h> [thread|one] [t0]  n doSteps from t0, mean ns per step (thread: each from a new thread)
 * The process exits with 0 when the script ends (whatever the statuses), so a signal or a non-zero
 * exit status is the host's or the FMU's crash, never an FMI error. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *Comp;
typedef unsigned int VR;
typedef void (*Logger)(void *, const char *, int, const char *, const char *, ...);
typedef struct { Logger logger; void *(*alloc)(size_t, size_t); void (*free)(void *); void *step_finished; void *env; } Callbacks;

static struct {
    Comp (*instantiate)(const char *, int, const char *, const char *, const Callbacks *, int, int);
    void (*free_instance)(Comp);
    int (*setup)(Comp, int, double, double, int, double);
    int (*enter)(Comp), (*exit_init)(Comp), (*terminate)(Comp), (*reset)(Comp);
    int (*set_real)(Comp, const VR *, size_t, const double *);
    int (*set_integer)(Comp, const VR *, size_t, const int *);
    int (*get_real)(Comp, const VR *, size_t, double *);
    int (*get_integer)(Comp, const VR *, size_t, int *);
    int (*do_step)(Comp, double, double, int);
    int (*get_state)(Comp, void **), (*set_state)(Comp, void *), (*free_state)(Comp, void **);
    int (*state_size)(Comp, void *, size_t *);
    int (*serialize)(Comp, void *, char *, size_t);
    int (*deserialize)(Comp, const char *, size_t, void **);
} fmi;

static void logger(void *env, const char *name, int status, const char *category, const char *fmt, ...)
{
    (void)env;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "LOG %s status=%d category=%s: ", name, status, category);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void *load(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "missing %s\n", name);
        exit(3);
    }
    return f;
}

#define MAXV 256
static Comp comp;
static void *state;
static char *blob;
static size_t blob_size;

static size_t read_vrs(char **rest, VR *vr, double *x, int with_values)
{
    size_t n = 0;
    char *tok;
    while (n < MAXV && (tok = strtok_r(NULL, " \t\n", rest))) {
        vr[n] = (VR)strtoul(tok, NULL, 10);
        if (with_values) {
            tok = strtok_r(NULL, " \t\n", rest);
            x[n] = tok ? strtod(tok, NULL) : 0.0;
        }
        ++n;
    }
    return n;
}

typedef struct { double t, h; int status; } StepJob;

static void *step_job(void *p)
{
    StepJob *job = p;
    job->status = fmi.do_step(comp, job->t, job->h, 1);
    return NULL;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench(long n, double h, int threads, double start)
{
    int worst = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; ++i) {
        StepJob job = {start + i * h, h, 0};
        if (threads) {
            pthread_t th;
            pthread_create(&th, NULL, step_job, &job);
            pthread_join(th, NULL);
        } else {
            step_job(&job);
        }
        if (job.status > worst)
            worst = job.status;
    }
    double per_step = (now_ns() - t0) / n;
    double per_thread = 0.0; /* what creating and joining an empty thread costs, to subtract */
    if (threads) {
        double t1 = now_ns();
        for (long i = 0; i < n; ++i) {
            pthread_t th;
            StepJob job = {0, 0, 0};
            pthread_create(&th, NULL, (void *(*)(void *))(void *)memset, &job); /* trivial body */
            pthread_join(th, NULL);
        }
        per_thread = (now_ns() - t1) / n;
    }
    printf("bench %d %.1f %.1f\n", worst, per_step, per_thread);
}

int main(int argc, char **argv)
{
    char so[4096], uri[4200], line[65536];
    if (argc < 3) {
        fprintf(stderr, "usage: %s <unzipped FMU> <modelIdentifier> < script\n", argv[0]);
        return 2;
    }
    snprintf(so, sizeof so, "%s/binaries/linux64/%s.so", argv[1], argv[2]);
    snprintf(uri, sizeof uri, "file://%s/resources", argv[1]);
    void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 3;
    }
    *(void **)&fmi.instantiate = load(lib, "fmi2Instantiate");
    *(void **)&fmi.free_instance = load(lib, "fmi2FreeInstance");
    *(void **)&fmi.setup = load(lib, "fmi2SetupExperiment");
    *(void **)&fmi.enter = load(lib, "fmi2EnterInitializationMode");
    *(void **)&fmi.exit_init = load(lib, "fmi2ExitInitializationMode");
    *(void **)&fmi.terminate = load(lib, "fmi2Terminate");
    *(void **)&fmi.reset = load(lib, "fmi2Reset");
    *(void **)&fmi.set_real = load(lib, "fmi2SetReal");
    *(void **)&fmi.set_integer = load(lib, "fmi2SetInteger");
    *(void **)&fmi.get_real = load(lib, "fmi2GetReal");
    *(void **)&fmi.get_integer = load(lib, "fmi2GetInteger");
    *(void **)&fmi.do_step = load(lib, "fmi2DoStep");
    *(void **)&fmi.get_state = load(lib, "fmi2GetFMUstate");
    *(void **)&fmi.set_state = load(lib, "fmi2SetFMUstate");
    *(void **)&fmi.free_state = load(lib, "fmi2FreeFMUstate");
    *(void **)&fmi.state_size = load(lib, "fmi2SerializedFMUstateSize");
    *(void **)&fmi.serialize = load(lib, "fmi2SerializeFMUstate");
    *(void **)&fmi.deserialize = load(lib, "fmi2DeSerializeFMUstate");
    Callbacks cb = {logger, calloc, free, NULL, NULL};
    VR vr[MAXV] = {0};
    double x[MAXV] = {0};
    int ix[MAXV] = {0};
    while (fgets(line, sizeof line, stdin)) {
        char *rest, *cmd = strtok_r(line, " \t\n", &rest);
        int st = -1;
        size_t n;
        if (!cmd || cmd[0] == '#')
            continue;
        if (!strcmp(cmd, "instantiate")) {
            char *guid = strtok_r(NULL, " \t\n", &rest), *type = strtok_r(NULL, " \t\n", &rest);
            comp = fmi.instantiate("host", type && !strcmp(type, "me") ? 0 : 1, guid, uri, &cb, 0, 0);
            printf("instantiate %s\n", comp ? "ok" : "NULL");
            continue;
        } else if (!strcmp(cmd, "setup")) {
            char *t = strtok_r(NULL, " \t\n", &rest);
            st = fmi.setup(comp, 0, 0.0, t ? strtod(t, NULL) : 0.0, 0, 0.0);
        } else if (!strcmp(cmd, "enter")) {
            st = fmi.enter(comp);
        } else if (!strcmp(cmd, "exit")) {
            st = fmi.exit_init(comp);
        } else if (!strcmp(cmd, "terminate")) {
            st = fmi.terminate(comp);
        } else if (!strcmp(cmd, "reset")) {
            st = fmi.reset(comp);
        } else if (!strcmp(cmd, "free")) {
            fmi.free_instance(comp);
            comp = NULL;
            st = 0;
        } else if (!strcmp(cmd, "set_real")) {
            n = read_vrs(&rest, vr, x, 1);
            st = fmi.set_real(comp, vr, n, x);
        } else if (!strcmp(cmd, "set_integer")) {
            n = read_vrs(&rest, vr, x, 1);
            for (size_t i = 0; i < n; ++i)
                ix[i] = (int)x[i];
            st = fmi.set_integer(comp, vr, n, ix);
        } else if (!strcmp(cmd, "get_real") || !strcmp(cmd, "get_integer")) {
            int real = !strcmp(cmd, "get_real");
            n = read_vrs(&rest, vr, x, 0);
            st = real ? fmi.get_real(comp, vr, n, x) : fmi.get_integer(comp, vr, n, ix);
            printf("%s %d", cmd, st);
            for (size_t i = 0; i < n; ++i)
                real ? printf(" %.17g", x[i]) : printf(" %d", ix[i]);
            printf("\n");
            continue;
        } else if (!strcmp(cmd, "step")) {
            char *t = strtok_r(NULL, " \t\n", &rest), *h = strtok_r(NULL, " \t\n", &rest);
            st = fmi.do_step(comp, t ? strtod(t, NULL) : 0.0, h ? strtod(h, NULL) : 0.0, 0);
        } else if (!strcmp(cmd, "save")) {
            st = fmi.get_state(comp, &state);
        } else if (!strcmp(cmd, "restore")) {
            st = fmi.set_state(comp, state);
        } else if (!strcmp(cmd, "free_state")) {
            st = fmi.free_state(comp, &state);
        } else if (!strcmp(cmd, "serialize")) {
            char *e = strtok_r(NULL, " \t\n", &rest);
            long extra = e ? strtol(e, NULL, 10) : 0;
            size_t size = 0;
            st = fmi.state_size(comp, state, &size);
            if (st == 0) {
                size_t given = (size_t)((long)size + extra);
                free(blob);
                blob = calloc(1, given + 1); /* the host's buffer of `given` bytes */
                memset(blob, 0x5a, given + 1);
                st = fmi.serialize(comp, state, blob, given);
                blob_size = size;
                /* bytes beyond the state must be untouched */
                for (size_t i = size; i < given + 1 && st == 0; ++i)
                    if (blob[i] != 0x5a) {
                        printf("serialize wrote beyond the state at byte %zu\n", i);
                        break;
                    }
            }
            printf("serialize %d %zu\n", st, size);
            continue;
        } else if (!strcmp(cmd, "deserialize_last")) {
            void *s2 = NULL;
            st = fmi.deserialize(comp, blob, blob_size, &s2);
            if (st == 0) {
                fmi.free_state(comp, &state);
                state = s2;
            }
        } else if (!strcmp(cmd, "deserialize_garbage")) {
            const char garbage[] = "\x80\x04garbage that no state format accepts\xff\x00\x13";
            void *s2 = NULL;
            st = fmi.deserialize(comp, garbage, sizeof garbage, &s2);
            if (st == 0)
                fmi.free_state(comp, &s2);
        } else if (!strcmp(cmd, "bench")) {
            char *a = strtok_r(NULL, " \t\n", &rest), *b = strtok_r(NULL, " \t\n", &rest);
            char *c = strtok_r(NULL, " \t\n", &rest), *d = strtok_r(NULL, " \t\n", &rest);
            bench(a ? strtol(a, NULL, 10) : 1000, b ? strtod(b, NULL) : 1e-3, c && !strcmp(c, "thread"),
                  d ? strtod(d, NULL) : 0.0);
            continue;
        } else {
            fprintf(stderr, "unknown command %s\n", cmd);
            return 2;
        }
        printf("%s %d\n", cmd, st);
        fflush(stdout);
    }
    free(blob);
    return 0;
}
