/* A plain C host that loads several FMUs at once, each on its own thread (issue 21, items 3 and 9).
 *
 *   usage: threads_host first <2|3> <steps> <dir> <modelIdentifier> <guid or token> [<dir> <id> <token>]...
 *          threads_host cancel <dir> <modelIdentifier> <guid> <h> <delay s> [<vr>=<integer> ...]
 *
 * first:  every FMU (an unzipped FMU folder) is loaded with dlopen; then one thread per FMU, released together
 *         by a barrier, instantiates it (the process's first instantiation of every FMU at the same moment),
 *         initializes it, runs <steps> doSteps of 0.01 s and frees it. One line per FMU:
 *         "fmu <id> instantiate ok|NULL steps <worst status>".
 * cancel: one FMI 2.0 FMU; after setting the integers given (parameters) it initializes, starts doStep(0, h) on a
 *         second thread, calls fmi2CancelStep after <delay> seconds from this thread and prints
 *         "cancel <cancel status> step <doStep status> <seconds from cancel to doStep's return>".
 * The process exits 0 when it gets to the end (whatever the statuses): a signal or another exit status is a crash. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *Comp;
typedef struct { void *logger, *alloc, *free, *step_finished, *env; } Callbacks2;

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

static void *symbol(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "missing %s\n", name);
        exit(3);
    }
    return f;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct {
    int version, steps;
    const char *dir, *id, *token;
    void *lib;
    pthread_barrier_t *start;
    int instantiated, worst;
} Job;

static void *load_library(const char *dir, const char *id, int version)
{
    char so[4200];
    snprintf(so, sizeof so, "%s/binaries/%s/%s.so", dir, version == 2 ? "linux64" : "x86_64-linux", id);
    void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        exit(3);
    }
    return lib;
}

static int run_fmi2(Job *job)
{
    Comp (*instantiate)(const char *, int, const char *, const char *, const Callbacks2 *, int, int);
    int (*setup)(Comp, int, double, double, int, double);
    int (*enter)(Comp), (*exit_init)(Comp), (*do_step)(Comp, double, double, int);
    void (*free_instance)(Comp);
    *(void **)&instantiate = symbol(job->lib, "fmi2Instantiate");
    *(void **)&setup = symbol(job->lib, "fmi2SetupExperiment");
    *(void **)&enter = symbol(job->lib, "fmi2EnterInitializationMode");
    *(void **)&exit_init = symbol(job->lib, "fmi2ExitInitializationMode");
    *(void **)&do_step = symbol(job->lib, "fmi2DoStep");
    *(void **)&free_instance = symbol(job->lib, "fmi2FreeInstance");
    char uri[4300];
    snprintf(uri, sizeof uri, "file://%s/resources", job->dir);
    Callbacks2 cb = {(void *)logger2, (void *)calloc, (void *)free, NULL, NULL};
    pthread_barrier_wait(job->start);
    Comp c = instantiate(job->id, 1, job->token, uri, &cb, 0, 0);
    if (!c)
        return 0;
    int worst = setup(c, 0, 0.0, 0.0, 0, 0.0);
    int st = enter(c);
    worst = st > worst ? st : worst;
    st = exit_init(c);
    worst = st > worst ? st : worst;
    for (int k = 0; k < job->steps; ++k) {
        st = do_step(c, 0.01 * k, 0.01, 1);
        worst = st > worst ? st : worst;
    }
    free_instance(c);
    job->worst = worst;
    return 1;
}

static int run_fmi3(Job *job)
{
    Comp (*instantiate)(const char *, const char *, const char *, bool, bool, bool, bool, const uint32_t *, size_t,
                        void *, void *, void *);
    int (*enter)(Comp, bool, double, double, bool, double), (*exit_init)(Comp);
    int (*do_step)(Comp, double, double, bool, bool *, bool *, bool *, double *);
    void (*free_instance)(Comp);
    *(void **)&instantiate = symbol(job->lib, "fmi3InstantiateCoSimulation");
    *(void **)&enter = symbol(job->lib, "fmi3EnterInitializationMode");
    *(void **)&exit_init = symbol(job->lib, "fmi3ExitInitializationMode");
    *(void **)&do_step = symbol(job->lib, "fmi3DoStep");
    *(void **)&free_instance = symbol(job->lib, "fmi3FreeInstance");
    char resources[4300];
    snprintf(resources, sizeof resources, "%s/resources/", job->dir);
    pthread_barrier_wait(job->start);
    Comp c = instantiate(job->id, job->token, resources, false, false, false, false, NULL, 0, NULL,
                         (void *)logger3, NULL);
    if (!c)
        return 0;
    int worst = enter(c, false, 0.0, 0.0, false, 0.0);
    int st = exit_init(c);
    worst = st > worst ? st : worst;
    for (int k = 0; k < job->steps; ++k) {
        bool event, terminate, early;
        double last;
        st = do_step(c, 0.01 * k, 0.01, true, &event, &terminate, &early, &last);
        worst = st > worst ? st : worst;
    }
    free_instance(c);
    job->worst = worst;
    return 1;
}

static void *run_job(void *p)
{
    Job *job = p;
    job->instantiated = job->version == 2 ? run_fmi2(job) : run_fmi3(job);
    return NULL;
}

static int first(int argc, char **argv)
{
    int version = atoi(argv[2]), steps = atoi(argv[3]), n = (argc - 4) / 3;
    Job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (int i = 0; i < n; ++i) {
        Job job = {version, steps, argv[4 + 3 * i], argv[5 + 3 * i], argv[6 + 3 * i], NULL, &start, 0, -1};
        job.lib = load_library(job.dir, job.id, version);
        jobs[i] = job;
    }
    for (int i = 0; i < n; ++i)
        pthread_create(&threads[i], NULL, run_job, &jobs[i]);
    for (int i = 0; i < n; ++i) {
        pthread_join(threads[i], NULL);
        printf("fmu %s instantiate %s steps %d\n", jobs[i].id, jobs[i].instantiated ? "ok" : "NULL", jobs[i].worst);
    }
    free(jobs);
    free(threads);
    return 0;
}

typedef struct {
    Comp c;
    double h, returned;
    int (*do_step)(Comp, double, double, int);
    int status;
} StepJob;

static void *step_job(void *p)
{
    StepJob *job = p;
    job->status = job->do_step(job->c, 0.0, job->h, 1);
    job->returned = now_s();
    return NULL;
}

static int cancel(int argc, char **argv)
{
    const char *dir = argv[2], *id = argv[3], *guid = argv[4];
    double h = strtod(argv[5], NULL), delay = strtod(argv[6], NULL);
    void *lib = load_library(dir, id, 2);
    Comp (*instantiate)(const char *, int, const char *, const char *, const Callbacks2 *, int, int);
    int (*setup)(Comp, int, double, double, int, double), (*enter)(Comp), (*exit_init)(Comp);
    int (*set_integer)(Comp, const unsigned *, size_t, const int *), (*cancel_step)(Comp);
    StepJob job = {NULL, h, 0.0, NULL, -1};
    *(void **)&instantiate = symbol(lib, "fmi2Instantiate");
    *(void **)&setup = symbol(lib, "fmi2SetupExperiment");
    *(void **)&enter = symbol(lib, "fmi2EnterInitializationMode");
    *(void **)&exit_init = symbol(lib, "fmi2ExitInitializationMode");
    *(void **)&set_integer = symbol(lib, "fmi2SetInteger");
    *(void **)&cancel_step = symbol(lib, "fmi2CancelStep");
    *(void **)&job.do_step = symbol(lib, "fmi2DoStep");
    char uri[4300];
    snprintf(uri, sizeof uri, "file://%s/resources", dir);
    Callbacks2 cb = {(void *)logger2, (void *)calloc, (void *)free, NULL, NULL};
    job.c = instantiate(id, 1, guid, uri, &cb, 0, 0);
    if (!job.c) {
        printf("instantiate NULL\n");
        return 0;
    }
    setup(job.c, 0, 0.0, 0.0, 0, 0.0);
    enter(job.c);
    for (int i = 7; i < argc; ++i) {
        unsigned vr = (unsigned)strtoul(argv[i], NULL, 10);
        const char *eq = strchr(argv[i], '=');
        int value = eq ? atoi(eq + 1) : 0;
        set_integer(job.c, &vr, 1, &value);
    }
    exit_init(job.c);
    pthread_t th;
    pthread_create(&th, NULL, step_job, &job);
    struct timespec pause = {(time_t)delay, (long)((delay - (time_t)delay) * 1e9)};
    nanosleep(&pause, NULL);
    double asked = now_s();
    int st = cancel_step(job.c);
    pthread_join(th, NULL);
    printf("cancel %d step %d %.3f\n", st, job.status, job.returned - asked);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 7 && !strcmp(argv[1], "first") && (argc - 4) % 3 == 0)
        return first(argc, argv);
    if (argc >= 7 && !strcmp(argv[1], "cancel"))
        return cancel(argc, argv);
    fprintf(stderr, "usage: %s first <2|3> <steps> <dir> <id> <token> [...] | cancel <dir> <id> <guid> <h> <delay> "
                    "[<vr>=<int> ...]\n", argv[0]);
    return 2;
}
