/* Finding, loading and entering CPython for the FMI runtime (see pyapi.h).
 *
 * Process-wide state, unavoidable because a process has one CPython: the resolved function table
 * (`g_api`, filled once under `g_lock`) and one thread-specific record per host thread holding the
 * thread state created at its first call (released by a pthread key destructor when the thread ends).
 * Nothing here finalizes Python or runs at unload. */
#define _GNU_SOURCE
#include "pyapi.h"

#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static PyApi g_api;
static int g_ready = 0;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- small helpers ---------------------------------------------------------------------------- */

static void append(char *buf, size_t size, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 < size)
        snprintf(buf + n, size - n, "%s", text);
}

static int is_dir(const char *p) { struct stat s; return stat(p, &s) == 0 && S_ISDIR(s.st_mode); }
static int is_file(const char *p) { struct stat s; return stat(p, &s) == 0 && S_ISREG(s.st_mode); }

/* The nth (0-based) value of `key` in a record of `key=value` lines; 1 when found. */
int record_value(const char *text, const char *key, int nth, char *out, size_t size)
{
    size_t klen = strlen(key);
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=' && nth-- == 0) {
            size_t vlen = len - klen - 1;
            if (vlen > 0 && line[klen + vlen] == '\r')
                vlen--;
            if (vlen >= size)
                return 0;
            memcpy(out, line + klen + 1, vlen);
            out[vlen] = '\0';
            return 1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

/* ---- resolving the functions ------------------------------------------------------------------ */

static int resolve(void *lib, PyApi *api, char *missing, size_t size)
{
#define SYM(field, name)                                         \
    do {                                                         \
        *(void **)(&api->field) = dlsym(lib, name);              \
        if (!api->field) { snprintf(missing, size, "%s", name); return 0; } \
    } while (0)
    SYM(IsInitialized, "Py_IsInitialized");
    SYM(InitializeEx, "Py_InitializeEx");
    SYM(GILState_Ensure, "PyGILState_Ensure");
    SYM(GILState_Release, "PyGILState_Release");
    SYM(Eval_SaveThread, "PyEval_SaveThread");
    SYM(Eval_RestoreThread, "PyEval_RestoreThread");
    SYM(Eval_ReleaseThread, "PyEval_ReleaseThread");
    SYM(GILState_GetThisThreadState, "PyGILState_GetThisThreadState");
    SYM(ThreadState_Clear, "PyThreadState_Clear");
    SYM(ThreadState_Delete, "PyThreadState_Delete");
    SYM(Import_ImportModule, "PyImport_ImportModule");
    SYM(Object_GetAttrString, "PyObject_GetAttrString");
    SYM(Object_SetAttrString, "PyObject_SetAttrString");
    SYM(Object_Call, "PyObject_Call");
    SYM(Object_CallObject, "PyObject_CallObject");
    SYM(Object_Str, "PyObject_Str");
    SYM(Object_IsTrue, "PyObject_IsTrue");
    SYM(Object_IsInstance, "PyObject_IsInstance");
    SYM(Object_GetItem, "PyObject_GetItem");
    SYM(Object_Size, "PyObject_Size");
    SYM(Mapping_HasKeyString, "PyMapping_HasKeyString");
    SYM(DecRef, "Py_DecRef");
    SYM(IncRef, "Py_IncRef");
    SYM(Float_FromDouble, "PyFloat_FromDouble");
    SYM(Float_AsDouble, "PyFloat_AsDouble");
    SYM(Long_FromLong, "PyLong_FromLong");
    SYM(Long_AsLong, "PyLong_AsLong");
    SYM(Bool_FromLong, "PyBool_FromLong");
    SYM(List_New, "PyList_New");
    SYM(List_Size, "PyList_Size");
    SYM(List_GetItem, "PyList_GetItem");
    SYM(List_SetItem, "PyList_SetItem");
    SYM(List_SetSlice, "PyList_SetSlice");
    SYM(List_Insert, "PyList_Insert");
    SYM(Sequence_GetItem, "PySequence_GetItem");
    SYM(Sequence_Size, "PySequence_Size");
    SYM(Tuple_New, "PyTuple_New");
    SYM(Tuple_SetItem, "PyTuple_SetItem");
    SYM(Dict_New, "PyDict_New");
    SYM(Dict_SetItemString, "PyDict_SetItemString");
    SYM(Bytes_FromStringAndSize, "PyBytes_FromStringAndSize");
    SYM(Bytes_AsStringAndSize, "PyBytes_AsStringAndSize");
    SYM(Unicode_FromString, "PyUnicode_FromString");
    SYM(Unicode_AsUTF8AndSize, "PyUnicode_AsUTF8AndSize");
    SYM(Err_Occurred, "PyErr_Occurred");
    SYM(Err_Fetch, "PyErr_Fetch");
    SYM(Err_Clear, "PyErr_Clear");
    SYM(None, "_Py_NoneStruct");
#undef SYM
    return 1;
}

/* ---- where a Python lives ------------------------------------------------------------------- */

typedef struct {
    char lib[4096];   /* libpython to dlopen */
    char home[4096];  /* PYTHONHOME during initialization ("" = let Python find it) */
    char path[16384]; /* PYTHONPATH during initialization ("" = none) */
} PythonSetup;

/* A directory two levels at most above `lib` whose lib/python3.X/os.py exists: the prefix. */
static void home_of_library(const char *lib, char *home, size_t size)
{
    const char *base = strrchr(lib, '/');
    char ver[32] = "", dir[4096];
    if (!base || sscanf(base + 1, "libpython%31[0-9.]", ver) != 1)
        return;
    size_t n = strlen(ver);
    if (n && ver[n - 1] == '.')
        ver[n - 1] = '\0';
    snprintf(dir, sizeof dir, "%.*s", (int)(base - lib), lib);
    for (int up = 0; up < 3; ++up) {
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/lib/python%s/os.py", dir, ver);
        if (is_file(probe)) {
            snprintf(home, size, "%s", dir);
            return;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return;
        *slash = '\0';
    }
}

/* The first libpython3*.so* under prefix/lib (or prefix/lib/<multiarch>). */
static int library_in_prefix(const char *prefix, char *lib, size_t size)
{
    const char *patterns[] = {"%s/lib/libpython3*.so*", "%s/lib/*-linux-gnu/libpython3*.so*"};
    for (int i = 0; i < 2; ++i) {
        char pat[4200];
        glob_t g;
        snprintf(pat, sizeof pat, patterns[i], prefix);
        if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
            snprintf(lib, size, "%s", g.gl_pathv[0]);
            globfree(&g);
            return 1;
        }
        globfree(&g);
    }
    return 0;
}

/* CRANE_COSIM_PYTHON: a libpython, a python executable (also inside a virtual environment) or a
 * prefix. 1 with `setup` filled, else 0 with the reason in why. */
static int setup_from_hint(const char *hint, PythonSetup *setup, char *why, size_t size)
{
    char dir[4096], cfg[4200], line[4096];
    memset(setup, 0, sizeof *setup);
    if (is_file(hint) && strstr(hint, "libpython")) {
        snprintf(setup->lib, sizeof setup->lib, "%s", hint);
        home_of_library(hint, setup->home, sizeof setup->home);
        return 1;
    }
    if (is_dir(hint)) {
        snprintf(dir, sizeof dir, "%s", hint);
    } else if (is_file(hint) && access(hint, X_OK) == 0) { /* <prefix>/bin/python */
        snprintf(dir, sizeof dir, "%s", hint);
        for (int up = 0; up < 2; ++up) {
            char *slash = strrchr(dir, '/');
            if (!slash) { snprintf(dir, sizeof dir, "."); break; }
            *slash = '\0';
        }
    } else {
        snprintf(why, size, "is neither a libpython, a python executable nor a directory");
        return 0;
    }
    snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", dir);
    FILE *f = fopen(cfg, "r");
    if (f) { /* a virtual environment: its base interpreter, and its site-packages on the path */
        char base[4096] = "";
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "home = %4095[^\n]", base) == 1)
                break;
        fclose(f);
        char *slash = strrchr(base, '/'); /* home names the base's bin folder */
        if (slash)
            *slash = '\0';
        glob_t g;
        char pat[4200];
        snprintf(pat, sizeof pat, "%s/lib/python3*/site-packages", dir);
        if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0)
            snprintf(setup->path, sizeof setup->path, "%s", g.gl_pathv[0]);
        globfree(&g);
        snprintf(dir, sizeof dir, "%s", base);
    }
    if (!library_in_prefix(dir, setup->lib, sizeof setup->lib)) {
        snprintf(why, size, "no libpython3*.so under %s/lib (a Python built without --enable-shared?)", dir);
        return 0;
    }
    home_of_library(setup->lib, setup->home, sizeof setup->home);
    return 1;
}

static int setup_from_record(const char *record, PythonSetup *setup, char *why, size_t size)
{
    char entry[4096];
    memset(setup, 0, sizeof *setup);
    if (!record || !record_value(record, "libpython", 0, setup->lib, sizeof setup->lib)) {
        snprintf(why, size, "no libpython recorded");
        return 0;
    }
    record_value(record, "home", 0, setup->home, sizeof setup->home);
    for (int i = 0; record_value(record, "path", i, entry, sizeof entry); ++i) {
        if (i)
            append(setup->path, sizeof setup->path, ":");
        append(setup->path, sizeof setup->path, entry);
    }
    return 1;
}

/* ---- initialization -------------------------------------------------------------------------- */

/* Set name=value (or unset for "") and return the previous value (malloc'd, NULL when unset). */
static char *swap_env(const char *name, const char *value)
{
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    if (value && *value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return saved;
}

static void restore_env(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

/* dlopen + initialize the Python described by setup; 1 on success. The environment variables are
 * the host's again afterwards (Python reads them only during initialization). */
static int start_python(const PythonSetup *setup, char *why, size_t size)
{
    char missing[64];
    /* RTLD_GLOBAL: extension modules (numpy, the kernel) resolve libpython's symbols through it. */
    void *lib = dlopen(setup->lib, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(why, size, "cannot load %s: %s", setup->lib, dlerror());
        return 0;
    }
    if (!resolve(lib, &g_api, missing, sizeof missing)) {
        snprintf(why, size, "%s lacks %s", setup->lib, missing);
        return 0;
    }
    if (!g_api.IsInitialized()) {
        char *home = swap_env("PYTHONHOME", setup->home);
        char *path = swap_env("PYTHONPATH", setup->path);
        char *nouser = swap_env("PYTHONNOUSERSITE", "1");
        g_api.InitializeEx(0); /* 0: no signal handlers, the host owns them */
        restore_env("PYTHONHOME", home);
        restore_env("PYTHONPATH", path);
        restore_env("PYTHONNOUSERSITE", nouser);
        if (!g_api.IsInitialized()) {
            snprintf(why, size, "%s did not initialize (home %s)", setup->lib, setup->home);
            return 0;
        }
        g_api.Eval_SaveThread(); /* this thread keeps its thread state; see py_enter */
    }
    return 1;
}

static pthread_key_t g_thread_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

typedef struct {
    PyThreadState *ts; /* the thread state this runtime created for the thread (NULL: it had one) */
} ThreadRecord;

/* Thread exit: delete the thread state created at the thread's first call. glibc has already cleared
 * Python's own thread-specific pointer to it at this point (it clears every key's value before calling
 * destructors), so PyGILState_Release cannot be used; Clear + Delete with the GIL taken explicitly can. */
static void release_thread_state(void *p)
{
    ThreadRecord *rec = p;
    if (rec && rec->ts && g_ready && g_api.IsInitialized()) {
        g_api.Eval_RestoreThread(rec->ts);
        g_api.ThreadState_Clear(rec->ts);
        g_api.Eval_ReleaseThread(rec->ts);
        g_api.ThreadState_Delete(rec->ts);
    }
    free(rec);
}

static void make_thread_key(void) { pthread_key_create(&g_thread_key, release_thread_state); }

PyGILState_STATE py_enter(const PyApi *py)
{
    pthread_once(&g_key_once, make_thread_key);
    if (!pthread_getspecific(g_thread_key)) {
        ThreadRecord *rec = malloc(sizeof *rec);
        if (rec) {
            int had_one = py->GILState_GetThisThreadState() != NULL; /* a Python thread, or the initializer */
            py->GILState_Ensure();                  /* creates this thread's state if it has none */
            PyThreadState *ts = py->Eval_SaveThread(); /* keeps it (count stays >= 1), releases the GIL */
            rec->ts = had_one ? NULL : ts;
            pthread_setspecific(g_thread_key, rec);
        }
    }
    return py->GILState_Ensure();
}

void py_leave(const PyApi *py, PyGILState_STATE g) { py->GILState_Release(g); }

const PyApi *py_api(const char *record, char *why, size_t why_size)
{
    PythonSetup setup;
    char reason[1024];
    pthread_mutex_lock(&g_lock);
    if (g_ready)
        goto done;
    why[0] = '\0';
    /* 1. The host already runs Python (fmpy, libcosimpy, ecospy, ...): use that interpreter. */
    int (*running)(void);
    *(void **)(&running) = dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    if (running && running()) {
        char missing[64];
        if (resolve(RTLD_DEFAULT, &g_api, missing, sizeof missing)) {
            g_ready = 1;
            goto done;
        }
        snprintf(reason, sizeof reason, "the host's Python lacks %s; ", missing);
        append(why, why_size, reason);
    } else {
        append(why, why_size, "no Python running in the host; ");
    }
    /* 2. CRANE_COSIM_PYTHON, then 3. the interpreter recorded by the build. */
    const char *hint = getenv("CRANE_COSIM_PYTHON");
    if (hint && *hint) {
        if (setup_from_hint(hint, &setup, reason, sizeof reason) && start_python(&setup, reason, sizeof reason)) {
            g_ready = 1;
            goto done;
        }
        append(why, why_size, "CRANE_COSIM_PYTHON=");
        append(why, why_size, hint);
        append(why, why_size, ": ");
        append(why, why_size, reason);
        append(why, why_size, "; ");
    } else {
        append(why, why_size, "CRANE_COSIM_PYTHON not set; ");
    }
    if (setup_from_record(record, &setup, reason, sizeof reason) && start_python(&setup, reason, sizeof reason)) {
        g_ready = 1;
        goto done;
    }
    append(why, why_size, "the build's record (resources/crane_cosim_runtime.txt): ");
    append(why, why_size, reason);
    append(why, why_size, ". Set CRANE_COSIM_PYTHON to a shared libpython3.X.so, a python executable "
                          "(also of a virtual environment) or its prefix, with pythonfmu and numpy installed.");
done:
    pthread_mutex_unlock(&g_lock);
    return g_ready ? &g_api : NULL;
}

void py_error_text(const PyApi *py, char *buf, size_t size)
{
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    buf[0] = '\0';
    if (!py->Err_Occurred())
        return;
    py->Err_Fetch(&type, &value, &tb);
    const char *tname = "Exception";
    PyObject *name = type ? py->Object_GetAttrString(type, "__name__") : NULL;
    if (name)
        tname = py->Unicode_AsUTF8AndSize(name, NULL);
    PyObject *text = value ? py->Object_Str(value) : NULL;
    const char *msg = text ? py->Unicode_AsUTF8AndSize(text, NULL) : NULL;
    snprintf(buf, size, "%s: %s", tname ? tname : "Exception", msg ? msg : "(no message)");
    py->Err_Clear(); /* anything raised while formatting */
    if (text) py->DecRef(text);
    if (name) py->DecRef(name);
    if (type) py->DecRef(type);
    if (value) py->DecRef(value);
    if (tb) py->DecRef(tb);
}
