/* A careless C host (issue 34): FMI calls made while a step runs -- from FMI 3.0's intermediateUpdate callback or
 * from a second thread during an FMI 2.0 step --, a step the budget cannot reach, a huge directional seed.
 *
 *   usage: careless_host callback <dir> <id> <token> <out vr> <in vr> <action>...
 *          careless_host thread <dir> <id> <guid> <h> <delay s> <out vr> <in vr> [<vr>=<integer> ...]
 *          careless_host budget <2|3> <dir> <id> <guid or token> <budget vr> <h>
 *          careless_host seed <2|3> <dir> <id> <guid or token> <seed> <in vr>,<in vr>... <out vr>...
 *
 * callback: FMI 3.0, for each action a fresh instance with earlyReturnAllowed and an intermediateUpdate callback
 *           that makes, at its first call, one call of the action on the instance (reset, free, terminate, step,
 *           get, set, get_state, set_state, free_state, state_size, serialize, deserialize, derivative,
 *           debug_logging) during doStep(0, 0.05), then, after the step: a get of the output, a 10 ms step from
 *           where the step ended, the state freed, the instance freed. One line per action:
 *           "action <a> inner <status or -1> step <status> early <0|1> last <t> get <status> <finite 0|1> next <status>".
 * thread:   FMI 2.0, the integers set (parameters), doStep(0, h) on a second thread; after <delay> this thread
 *           reads the output 2000 times, then calls fmi2SetReal, fmi2DoStep, fmi2Terminate, fmi2Reset,
 *           fmi2FreeInstance, fmi2GetFMUstate and fmi2GetStatus once each, then fmi2CancelStep. Lines
 *           "reads ok <n> error <n> nan_ok <n>", "calls <status>...", "running <1 if the step ran throughout>",
 *           "step <status>", "after get <status> <finite> next <status>".
 * budget:   the integer at <budget vr> set to 2^31 - 1 in Initialization Mode, then doStep(0, h):
 *           "budget <status> <seconds> next <status of a 10 ms step>".
 * seed:     after initialization, the directional derivatives of the outputs by each input with the seed:
 *           "seed <input vr> <status> <value>..." for each.
 * Log messages go to stderr. The process exits 0 when it gets to the end (whatever the statuses): a signal or
 * another exit status is a crash. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *Inst;
typedef unsigned VR;
typedef struct { void *logger, *alloc, *free, *step_finished, *env; } Callbacks2;
typedef void (*Update3)(void *, double, bool, bool, bool, bool, bool *, double *);

static void *lib;

static void *fn(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "missing %s\n", name);
        exit(3);
    }
    return f;
}
#define CALL(type, name, ...) ((type)fn(name))(__VA_ARGS__)
typedef int (*I_i)(Inst);

static void logger2(void *env, const char *name, int status, const char *category, const char *fmt, ...)
{
    va_list ap;
    (void)env;
    va_start(ap, fmt);
    fprintf(stderr, "LOG %s status=%d category=%s: ", name, status, category);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void logger3(void *env, int status, const char *category, const char *message)
{
    (void)env;
    fprintf(stderr, "LOG status=%d category=%s: %s\n", status, category, message);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void load(const char *dir, const char *id, int version)
{
    char so[4200];
    snprintf(so, sizeof so, "%s/binaries/%s/%s.so", dir, version == 2 ? "linux64" : "x86_64-linux", id);
    lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        exit(3);
    }
}

/* ---- FMI 3.0 ---------------------------------------------------------------------------------------------- */

typedef struct {
    Inst c;
    const char *action;
    VR out, in;
    void *state; /* saved before the step, for the state actions */
    int calls, inner;
} Env3;

typedef int (*Step3)(Inst, double, double, bool, bool *, bool *, bool *, double *);
typedef int (*Values3)(Inst, const VR *, size_t, double *, size_t);
typedef int (*State3)(Inst, void **);

/* The action's one call on the instance (a step is running on it); its status, -1 when the call has none. */
static int act3(Env3 *e)
{
    const char *a = e->action;
    double x = 0.0, seed = 1.0;
    size_t size = 0;
    void *s = NULL;
    unsigned char bytes[64] = {0};
    bool flags[3];
    if (!strcmp(a, "reset"))
        return CALL(I_i, "fmi3Reset", e->c);
    if (!strcmp(a, "terminate"))
        return CALL(I_i, "fmi3Terminate", e->c);
    if (!strcmp(a, "free")) {
        CALL(void (*)(Inst), "fmi3FreeInstance", e->c);
        return -1;
    }
    if (!strcmp(a, "step"))
        return CALL(Step3, "fmi3DoStep", e->c, 0.0, 0.01, true, &flags[0], &flags[1], &flags[2], &x);
    if (!strcmp(a, "get"))
        return CALL(Values3, "fmi3GetFloat64", e->c, &e->out, 1, &x, 1);
    if (!strcmp(a, "set"))
        return CALL(int (*)(Inst, const VR *, size_t, const double *, size_t), "fmi3SetFloat64", e->c, &e->in, 1,
                    &x, 1);
    if (!strcmp(a, "get_state"))
        return CALL(State3, "fmi3GetFMUState", e->c, &s);
    if (!strcmp(a, "set_state"))
        return CALL(int (*)(Inst, void *), "fmi3SetFMUState", e->c, e->state);
    if (!strcmp(a, "free_state"))
        return CALL(State3, "fmi3FreeFMUState", e->c, &e->state);
    if (!strcmp(a, "state_size"))
        return CALL(int (*)(Inst, void *, size_t *), "fmi3SerializedFMUStateSize", e->c, e->state, &size);
    if (!strcmp(a, "serialize"))
        return CALL(int (*)(Inst, void *, unsigned char *, size_t), "fmi3SerializeFMUState", e->c, e->state, bytes,
                    sizeof bytes);
    if (!strcmp(a, "deserialize"))
        return CALL(int (*)(Inst, const unsigned char *, size_t, void **), "fmi3DeserializeFMUState", e->c, bytes,
                    sizeof bytes, &s);
    if (!strcmp(a, "derivative"))
        return CALL(int (*)(Inst, const VR *, size_t, const VR *, size_t, const double *, size_t, double *, size_t),
                    "fmi3GetDirectionalDerivative", e->c, &e->out, 1, &e->in, 1, &seed, 1, &x, 1);
    if (!strcmp(a, "debug_logging"))
        return CALL(int (*)(Inst, bool, size_t, const char *const *), "fmi3SetDebugLogging", e->c, true, 0, NULL);
    fprintf(stderr, "unknown action %s\n", a);
    exit(2);
}

static void intermediate_update(void *env, double t, bool set, bool get, bool finished, bool can_return,
                                bool *requested, double *when)
{
    Env3 *e = env;
    (void)t; (void)set; (void)get; (void)finished; (void)can_return; (void)when;
    *requested = false;
    if (e->calls++ == 0)
        e->inner = act3(e);
}

static void callback_action(const char *dir, const char *id, const char *token, Env3 *e)
{
    char resources[4300];
    snprintf(resources, sizeof resources, "%s/resources/", dir);
    e->c = CALL(Inst (*)(const char *, const char *, const char *, bool, bool, bool, bool, const VR *, size_t, void *,
                         void *, Update3), "fmi3InstantiateCoSimulation", id, token, resources, false, false, false,
                true, NULL, 0, e, (void *)logger3, intermediate_update);
    if (!e->c) {
        printf("action %s instantiate NULL\n", e->action);
        return;
    }
    CALL(int (*)(Inst, bool, double, double, bool, double), "fmi3EnterInitializationMode", e->c, false, 0.0, 0.0,
         false, 0.0);
    CALL(I_i, "fmi3ExitInitializationMode", e->c);
    CALL(State3, "fmi3GetFMUState", e->c, &e->state);
    bool event, terminate, early, flags[3];
    double last = -1.0, next_last, x = NAN;
    int st = CALL(Step3, "fmi3DoStep", e->c, 0.0, 0.05, false, &event, &terminate, &early, &last);
    int got = CALL(Values3, "fmi3GetFloat64", e->c, &e->out, 1, &x, 1);
    int next = CALL(Step3, "fmi3DoStep", e->c, last, 0.01, false, &flags[0], &flags[1], &flags[2], &next_last);
    printf("action %s inner %d step %d early %d last %.17g get %d %d next %d\n", e->action, e->inner, st, (int)early,
           last, got, isfinite(x) ? 1 : 0, next);
    fflush(stdout);
    CALL(State3, "fmi3FreeFMUState", e->c, &e->state);
    CALL(void (*)(Inst), "fmi3FreeInstance", e->c);
}

static int callback(int argc, char **argv)
{
    load(argv[2], argv[3], 3);
    for (int k = 7; k < argc; ++k) {
        Env3 e = {NULL, argv[k], (VR)strtoul(argv[5], NULL, 10), (VR)strtoul(argv[6], NULL, 10), NULL, 0, -2};
        callback_action(argv[2], argv[3], argv[4], &e);
    }
    return 0;
}

/* ---- FMI 2.0 -------------------------------------------------------------------------------------------- */

typedef int (*Step2)(Inst, double, double, int);
typedef int (*Reals2)(Inst, const VR *, size_t, double *);

static Inst instantiate2(const char *dir, const char *id, const char *guid, const char *parameters[], int n)
{
    static Callbacks2 cb = {(void *)logger2, (void *)calloc, (void *)free, NULL, NULL};
    char uri[4300];
    snprintf(uri, sizeof uri, "file://%s/resources", dir);
    Inst c = CALL(Inst (*)(const char *, int, const char *, const char *, const Callbacks2 *, int, int),
                  "fmi2Instantiate", id, 1, guid, uri, &cb, 0, 0);
    if (!c)
        return NULL;
    CALL(int (*)(Inst, int, double, double, int, double), "fmi2SetupExperiment", c, 0, 0.0, 0.0, 0, 0.0);
    CALL(I_i, "fmi2EnterInitializationMode", c);
    for (int i = 0; i < n; ++i) {
        VR vr = (VR)strtoul(parameters[i], NULL, 10);
        const char *eq = strchr(parameters[i], '=');
        int value = eq ? atoi(eq + 1) : 0;
        CALL(int (*)(Inst, const VR *, size_t, const int *), "fmi2SetInteger", c, &vr, 1, &value);
    }
    CALL(I_i, "fmi2ExitInitializationMode", c);
    return c;
}

typedef struct {
    Inst c;
    double h;
    int status, done;
} StepJob;

static void *step_job(void *p)
{
    StepJob *job = p;
    job->status = CALL(Step2, "fmi2DoStep", job->c, 0.0, job->h, 1);
    __atomic_store_n(&job->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static int thread(int argc, char **argv)
{
    load(argv[2], argv[3], 2);
    double delay = strtod(argv[6], NULL), x;
    VR out = (VR)strtoul(argv[7], NULL, 10), in = (VR)strtoul(argv[8], NULL, 10);
    StepJob job = {instantiate2(argv[2], argv[3], argv[4], (const char **)argv + 9, argc - 9), strtod(argv[5], NULL),
                   -1, 0};
    if (!job.c) {
        printf("instantiate NULL\n");
        return 0;
    }
    pthread_t th;
    pthread_create(&th, NULL, step_job, &job);
    struct timespec pause = {(time_t)delay, (long)((delay - (time_t)delay) * 1e9)};
    nanosleep(&pause, NULL);
    int counts[3] = {0, 0, 0}, running = !__atomic_load_n(&job.done, __ATOMIC_ACQUIRE);
    for (int k = 0; k < 2000; ++k) {
        x = NAN;
        int st = CALL(Reals2, "fmi2GetReal", job.c, &out, 1, &x);
        counts[st == 0 ? 0 : 1] += 1;
        counts[2] += st == 0 && !isfinite(x);
    }
    void *state = NULL;
    int status = -1, calls[7];
    x = 0.0;
    calls[0] = CALL(int (*)(Inst, const VR *, size_t, const double *), "fmi2SetReal", job.c, &in, 1, &x);
    calls[1] = CALL(Step2, "fmi2DoStep", job.c, 0.0, 0.01, 1);
    calls[2] = CALL(I_i, "fmi2Terminate", job.c);
    calls[3] = CALL(I_i, "fmi2Reset", job.c);
    calls[4] = -2; /* no status; -2: not called, the step had ended (a free then would free) */
    if (!__atomic_load_n(&job.done, __ATOMIC_ACQUIRE)) {
        CALL(void (*)(Inst), "fmi2FreeInstance", job.c);
        calls[4] = -1;
    }
    calls[5] = CALL(int (*)(Inst, void **), "fmi2GetFMUstate", job.c, &state);
    calls[6] = CALL(int (*)(Inst, int, int *), "fmi2GetStatus", job.c, 0, &status);
    running = running && !__atomic_load_n(&job.done, __ATOMIC_ACQUIRE);
    int cancel = CALL(I_i, "fmi2CancelStep", job.c);
    pthread_join(th, NULL);
    printf("reads ok %d error %d nan_ok %d\ncalls", counts[0], counts[1], counts[2]);
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; ++k)
        printf(" %d", calls[k]);
    x = NAN;
    int got = CALL(Reals2, "fmi2GetReal", job.c, &out, 1, &x);
    int next = CALL(Step2, "fmi2DoStep", job.c, 0.0, 0.01, 1);
    printf("\nrunning %d\ncancel %d\nstep %d\nafter get %d %d next %d\n", running, cancel, job.status, got,
           isfinite(x) ? 1 : 0, next);
    CALL(void (*)(Inst), "fmi2FreeInstance", job.c);
    return 0;
}

/* ---- the budget and the seed, FMI 2.0 or 3.0 -------------------------------------------------------------- */

static Inst initialized(int version, const char *dir, const char *id, const char *token, const char *parameter)
{
    if (version == 2)
        return instantiate2(dir, id, token, &parameter, parameter ? 1 : 0);
    char resources[4300];
    snprintf(resources, sizeof resources, "%s/resources/", dir);
    Inst c = CALL(Inst (*)(const char *, const char *, const char *, bool, bool, bool, bool, const VR *, size_t,
                           void *, void *, void *), "fmi3InstantiateCoSimulation", id, token, resources, false,
                  false, false, false, NULL, 0, NULL, (void *)logger3, NULL);
    if (!c)
        return NULL;
    CALL(int (*)(Inst, bool, double, double, bool, double), "fmi3EnterInitializationMode", c, false, 0.0, 0.0,
         false, 0.0);
    if (parameter) {
        VR vr = (VR)strtoul(parameter, NULL, 10);
        int32_t value = atoi(strchr(parameter, '=') + 1);
        CALL(int (*)(Inst, const VR *, size_t, const int32_t *, size_t), "fmi3SetInt32", c, &vr, 1, &value, 1);
    }
    CALL(I_i, "fmi3ExitInitializationMode", c);
    return c;
}

static int step_any(int version, Inst c, double t, double h)
{
    bool flags[3];
    double last;
    if (version == 2)
        return CALL(Step2, "fmi2DoStep", c, t, h, 1);
    return CALL(Step3, "fmi3DoStep", c, t, h, true, &flags[0], &flags[1], &flags[2], &last);
}

static int budget(char **argv)
{
    int version = atoi(argv[2]);
    char parameter[64];
    snprintf(parameter, sizeof parameter, "%s=2147483647", argv[6]);
    load(argv[3], argv[4], version);
    Inst c = initialized(version, argv[3], argv[4], argv[5], parameter);
    if (!c) {
        printf("instantiate NULL\n");
        return 0;
    }
    double t0 = now_s();
    int st = step_any(version, c, 0.0, strtod(argv[7], NULL));
    double seconds = now_s() - t0;
    printf("budget %d %.6f next %d\n", st, seconds, step_any(version, c, 0.0, 0.01));
    CALL(void (*)(Inst), version == 2 ? "fmi2FreeInstance" : "fmi3FreeInstance", c);
    return 0;
}

static int seed(int argc, char **argv)
{
    int version = atoi(argv[2]);
    double s = strtod(argv[6], NULL), x[256];
    VR out[256];
    size_t n = 0;
    for (int k = 8; k < argc && n < 256; ++k)
        out[n++] = (VR)strtoul(argv[k], NULL, 10);
    load(argv[3], argv[4], version);
    Inst c = initialized(version, argv[3], argv[4], argv[5], NULL);
    if (!c) {
        printf("instantiate NULL\n");
        return 0;
    }
    for (char *p = argv[7]; *p; p += strspn(p, ",")) { /* each input of the comma-separated list */
        VR in = (VR)strtoul(p, &p, 10);
        int st = version == 2
            ? CALL(int (*)(Inst, const VR *, size_t, const VR *, size_t, const double *, double *),
                   "fmi2GetDirectionalDerivative", c, out, n, &in, 1, &s, x)
            : CALL(int (*)(Inst, const VR *, size_t, const VR *, size_t, const double *, size_t, double *, size_t),
                   "fmi3GetDirectionalDerivative", c, out, n, &in, 1, &s, 1, x, n);
        printf("seed %u %d", in, st);
        for (size_t i = 0; i < n; ++i)
            printf(" %.17g", x[i]);
        printf("\n");
    }
    CALL(void (*)(Inst), version == 2 ? "fmi2FreeInstance" : "fmi3FreeInstance", c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 8 && !strcmp(argv[1], "callback"))
        return callback(argc, argv);
    if (argc >= 9 && !strcmp(argv[1], "thread"))
        return thread(argc, argv);
    if (argc == 8 && !strcmp(argv[1], "budget"))
        return budget(argv);
    if (argc >= 9 && !strcmp(argv[1], "seed"))
        return seed(argc, argv);
    fprintf(stderr, "usage: see the comment at the top of careless_host.c\n");
    return 2;
}
