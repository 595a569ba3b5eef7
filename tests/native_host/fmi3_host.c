/* A plain C FMI 3.0 co-simulation host for the tests: loads an extracted FMU's binary with dlopen and runs a
 * script of FMI calls read from stdin, one call per line, printing one result line per call
 * ("<command> <status> [values]") on stdout and the FMU's log messages on stderr.
 *
 *   usage: fmi3_host <unzipped FMU dir> <modelIdentifier>    (script on stdin)
 *
 * Commands (value references and values as numbers):
 *   instantiate <token> [me]         enter <start>            exit              terminate   reset   free
 *   set_real <vr> <x> ...            set_integer <vr> <i> ... set_boolean <vr> <0|1> ...
 *   get_real <vr> ...                get_integer <vr> ...     get_boolean <vr> ...        get_string <vr> ...
 *   nvalues <n>                      the next get/set passes nValues = n instead of the number of vrs
 *   step <t> <h>                     prints "step <status> <eventHandlingNeeded> <terminateSimulation>
 *                                    <earlyReturn> <lastSuccessfulTime>"
 *   save | restore | free_state      serialize <extra bytes beyond the reported size, may be < 0>
 *   deserialize_garbage | deserialize_last
 *   call <fmi3 function taking only the instance>   (e.g. call fmi3EnterStepMode)
 * The process exits with 0 when the script ends (whatever the statuses), so a signal or a non-zero exit
 * status is the host's or the FMU's crash, never an FMI error. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *Inst;
typedef uint32_t VR;
typedef void (*Logger)(void *env, int status, const char *category, const char *message);

static struct {
    Inst (*instantiate)(const char *, const char *, const char *, bool, bool, bool, bool, const VR *, size_t, void *,
                        Logger, void *);
    Inst (*instantiate_me)(const char *, const char *, const char *, bool, bool, void *, Logger);
    void (*free_instance)(Inst);
    int (*enter)(Inst, bool, double, double, bool, double);
    int (*exit_init)(Inst), (*terminate)(Inst), (*reset)(Inst);
    int (*set_real)(Inst, const VR *, size_t, const double *, size_t);
    int (*set_integer)(Inst, const VR *, size_t, const int32_t *, size_t);
    int (*set_boolean)(Inst, const VR *, size_t, const bool *, size_t);
    int (*get_real)(Inst, const VR *, size_t, double *, size_t);
    int (*get_integer)(Inst, const VR *, size_t, int32_t *, size_t);
    int (*get_boolean)(Inst, const VR *, size_t, bool *, size_t);
    int (*get_string)(Inst, const VR *, size_t, const char **, size_t);
    int (*do_step)(Inst, double, double, bool, bool *, bool *, bool *, double *);
    int (*get_state)(Inst, void **), (*set_state)(Inst, void *), (*free_state)(Inst, void **);
    int (*state_size)(Inst, void *, size_t *);
    int (*serialize)(Inst, void *, uint8_t *, size_t);
    int (*deserialize)(Inst, const uint8_t *, size_t, void **);
} fmi;

static void logger(void *env, int status, const char *category, const char *message)
{
    (void)env;
    fprintf(stderr, "LOG status=%d category=%s: %s\n", status, category, message);
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
static Inst comp;
static void *state;
static uint8_t *blob;
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

int main(int argc, char **argv)
{
    char so[4096], resources[4200], line[65536];
    if (argc < 3) {
        fprintf(stderr, "usage: %s <unzipped FMU> <modelIdentifier> < script\n", argv[0]);
        return 2;
    }
    snprintf(so, sizeof so, "%s/binaries/x86_64-linux/%s.so", argv[1], argv[2]);
    snprintf(resources, sizeof resources, "%s/resources/", argv[1]); /* FMI 3.0: a path, not a URI */
    void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 3;
    }
    *(void **)&fmi.instantiate = load(lib, "fmi3InstantiateCoSimulation");
    *(void **)&fmi.instantiate_me = load(lib, "fmi3InstantiateModelExchange");
    *(void **)&fmi.free_instance = load(lib, "fmi3FreeInstance");
    *(void **)&fmi.enter = load(lib, "fmi3EnterInitializationMode");
    *(void **)&fmi.exit_init = load(lib, "fmi3ExitInitializationMode");
    *(void **)&fmi.terminate = load(lib, "fmi3Terminate");
    *(void **)&fmi.reset = load(lib, "fmi3Reset");
    *(void **)&fmi.set_real = load(lib, "fmi3SetFloat64");
    *(void **)&fmi.set_integer = load(lib, "fmi3SetInt32");
    *(void **)&fmi.set_boolean = load(lib, "fmi3SetBoolean");
    *(void **)&fmi.get_real = load(lib, "fmi3GetFloat64");
    *(void **)&fmi.get_integer = load(lib, "fmi3GetInt32");
    *(void **)&fmi.get_boolean = load(lib, "fmi3GetBoolean");
    *(void **)&fmi.get_string = load(lib, "fmi3GetString");
    *(void **)&fmi.do_step = load(lib, "fmi3DoStep");
    *(void **)&fmi.get_state = load(lib, "fmi3GetFMUState");
    *(void **)&fmi.set_state = load(lib, "fmi3SetFMUState");
    *(void **)&fmi.free_state = load(lib, "fmi3FreeFMUState");
    *(void **)&fmi.state_size = load(lib, "fmi3SerializedFMUStateSize");
    *(void **)&fmi.serialize = load(lib, "fmi3SerializeFMUState");
    *(void **)&fmi.deserialize = load(lib, "fmi3DeserializeFMUState");
    VR vr[MAXV] = {0};
    double x[MAXV] = {0};
    int32_t ix[MAXV] = {0};
    bool bx[MAXV] = {0};
    const char *sx[MAXV] = {0};
    long nvalues = -1; /* -1: nValues = number of value references */
    while (fgets(line, sizeof line, stdin)) {
        char *rest, *cmd = strtok_r(line, " \t\n", &rest);
        int st = -1;
        size_t n, nv;
        if (!cmd || cmd[0] == '#')
            continue;
        if (!strcmp(cmd, "instantiate")) {
            char *token = strtok_r(NULL, " \t\n", &rest), *type = strtok_r(NULL, " \t\n", &rest);
            if (type && !strcmp(type, "me"))
                comp = fmi.instantiate_me("host", token, resources, false, false, NULL, logger);
            else
                comp = fmi.instantiate("host", token, resources, false, false, false, false, NULL, 0, NULL, logger,
                                       NULL);
            printf("instantiate %s\n", comp ? "ok" : "NULL");
            fflush(stdout);
            continue;
        } else if (!strcmp(cmd, "nvalues")) {
            char *k = strtok_r(NULL, " \t\n", &rest);
            nvalues = k ? strtol(k, NULL, 10) : -1;
            continue;
        } else if (!strcmp(cmd, "enter")) {
            char *t = strtok_r(NULL, " \t\n", &rest);
            st = fmi.enter(comp, false, 0.0, t ? strtod(t, NULL) : 0.0, false, 0.0);
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
        } else if (!strcmp(cmd, "call")) {
            char *name = strtok_r(NULL, " \t\n", &rest);
            int (*f)(Inst) = NULL;
            *(void **)&f = name ? dlsym(lib, name) : NULL;
            st = f ? f(comp) : -2;
        } else if (!strncmp(cmd, "set_", 4)) {
            n = read_vrs(&rest, vr, x, 1);
            nv = nvalues < 0 ? n : (size_t)nvalues;
            nvalues = -1;
            for (size_t i = 0; i < n; ++i) {
                ix[i] = (int32_t)x[i];
                bx[i] = x[i] != 0.0;
            }
            if (!strcmp(cmd, "set_real"))
                st = fmi.set_real(comp, vr, n, x, nv);
            else if (!strcmp(cmd, "set_integer"))
                st = fmi.set_integer(comp, vr, n, ix, nv);
            else
                st = fmi.set_boolean(comp, vr, n, bx, nv);
        } else if (!strncmp(cmd, "get_", 4)) {
            n = read_vrs(&rest, vr, x, 0);
            nv = nvalues < 0 ? n : (size_t)nvalues;
            nvalues = -1;
            char kind = cmd[4]; /* r(eal), i(nteger), b(oolean), s(tring) */
            st = kind == 'r' ? fmi.get_real(comp, vr, n, x, nv)
                 : kind == 'i' ? fmi.get_integer(comp, vr, n, ix, nv)
                 : kind == 'b' ? fmi.get_boolean(comp, vr, n, bx, nv)
                               : fmi.get_string(comp, vr, n, sx, nv);
            printf("%s %d", cmd, st);
            for (size_t i = 0; st == 0 && i < n; ++i) {
                if (kind == 'r')
                    printf(" %.17g", x[i]);
                else if (kind == 'i')
                    printf(" %d", (int)ix[i]);
                else if (kind == 'b')
                    printf(" %d", (int)bx[i]);
                else
                    printf(" %s", sx[i]);
            }
            printf("\n");
            fflush(stdout);
            continue;
        } else if (!strcmp(cmd, "step")) {
            char *t = strtok_r(NULL, " \t\n", &rest), *h = strtok_r(NULL, " \t\n", &rest);
            bool event = true, terminate = true, early = true; /* the FMU must set each */
            double last = -1.0;
            st = fmi.do_step(comp, t ? strtod(t, NULL) : 0.0, h ? strtod(h, NULL) : 0.0, false, &event, &terminate,
                             &early, &last);
            printf("step %d %d %d %d %.17g\n", st, (int)event, (int)terminate, (int)early, last);
            fflush(stdout);
            continue;
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
                for (size_t i = size; i < given + 1 && st == 0; ++i) /* bytes beyond the state: untouched */
                    if (blob[i] != 0x5a) {
                        printf("serialize wrote beyond the state at byte %zu\n", i);
                        break;
                    }
            }
            printf("serialize %d %zu\n", st, size);
            fflush(stdout);
            continue;
        } else if (!strcmp(cmd, "deserialize_last")) {
            void *s2 = NULL;
            st = fmi.deserialize(comp, blob, blob_size, &s2);
            if (st == 0) {
                fmi.free_state(comp, &state);
                state = s2;
            }
        } else if (!strcmp(cmd, "deserialize_garbage")) {
            const uint8_t garbage[] = "\x80\x04garbage that no state format accepts\xff\x00\x13";
            void *s2 = NULL;
            st = fmi.deserialize(comp, garbage, sizeof garbage, &s2);
            if (st == 0)
                fmi.free_state(comp, &s2);
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
