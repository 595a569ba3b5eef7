/* Finding, loading and entering CPython for the FMI runtime (see pyapi.h). Where to look is pysearch.c,
 * how to ask the system is platform_posix.c / platform_windows.c.
 *
 * Process-wide state, unavoidable because a process has one CPython: the resolved function table
 * (`g_api`, filled once under the platform lock) and one thread-specific record per host thread holding
 * the thread state created at its first call (released by a pthread key destructor / fiber-local
 * callback when the thread ends). Nothing here finalizes Python or runs at unload. */
#include "pyapi.h"

#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PyApi g_api;
static int g_ready = 0;
static int g_thread_ready = 0;
static char g_which[4200]; /* which Python runs, for messages: the running one or its library */

static void append(char *buf, size_t size, const char *text)
{
    size_t n = strlen(buf);
    if (n + 1 < size)
        snprintf(buf + n, size - n, "%s", text);
}

/* ---- resolving the functions ------------------------------------------------------------------ */

static int resolve(void *lib, PyApi *api, char *missing, size_t size)
{
#define SYM(field, name)                                         \
    do {                                                         \
        *(void **)(&api->field) = plat_symbol(lib, name);              \
        if (!api->field) { snprintf(missing, size, "%s", name); return 0; } \
    } while (0)
    SYM(GetVersion, "Py_GetVersion");
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
    SYM(Long_FromVoidPtr, "PyLong_FromVoidPtr");
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

/* ---- initialization -------------------------------------------------------------------------- */

/* The minor version of a CPython version text ("3.12.1 (main, ...)" -> 12); -1 when it is not 3.X. */
static int version_minor(const char *version)
{
    int major = 0, minor = -1;
    return sscanf(version, "%d.%d", &major, &minor) == 2 && major == 3 ? minor : -1;
}

/* Loads + initializes the Python described by setup (a TryPython of the search; user: the FMU's Needs); 1 on
 * success. Python is told the program it runs as (setup->exe): for a virtual environment's python it then reads
 * that environment's pyvenv.cfg as when started from it -- its site-packages, the base's only with
 * include-system-site-packages = true (Py_SetProgramName for 3.10, __PYVENV_LAUNCHER__ for 3.11 and newer, which
 * clear it, and for 3.10 on Windows and macOS). The environment variables are the host's again afterwards
 * (Python reads them only during initialization). */
static int start_python(void *user, const PythonSetup *setup, char *why, size_t size)
{
    const Needs *needs = user;
    char missing[64], err[512];
    void *lib = plat_load(setup->lib, err, sizeof err);
    if (!lib) {
        snprintf(why, size, "cannot load %s: %s", setup->lib, err);
        return 0;
    }
    if (!resolve(lib, &g_api, missing, sizeof missing)) {
        snprintf(why, size, "%s lacks %s", setup->lib, missing);
        return 0;
    }
    int minor = version_minor(g_api.GetVersion());
    if (minor >= 0 && minor < needs->min_minor) { /* a library whose name did not say */
        snprintf(why, size, "%s is Python %.16s, older than the 3.%d this FMU needs", setup->lib,
                 g_api.GetVersion(), needs->min_minor);
        return 0;
    }
    if (!g_api.IsInitialized()) {
        char *home = plat_swap_env("PYTHONHOME", setup->home);
        char *path = plat_swap_env("PYTHONPATH", NULL);
        char *nouser = plat_swap_env("PYTHONNOUSERSITE", "1");
        char *launcher = plat_swap_env("__PYVENV_LAUNCHER__", setup->venv[0] ? setup->exe : NULL);
        if (setup->exe[0])
            plat_set_program_name(lib, setup->exe);
        g_api.InitializeEx(0); /* 0: no signal handlers, the host owns them */
        plat_restore_env("PYTHONHOME", home);
        plat_restore_env("PYTHONPATH", path);
        plat_restore_env("PYTHONNOUSERSITE", nouser);
        plat_restore_env("__PYVENV_LAUNCHER__", launcher);
        if (!g_api.IsInitialized()) {
            snprintf(why, size, "%s did not initialize (home %s)", setup->lib, setup->home);
            return 0;
        }
        g_api.Eval_SaveThread(); /* this thread keeps its thread state; see py_enter */
    }
    snprintf(g_which, sizeof g_which, "the Python of %.4000s", setup->venv[0] ? setup->venv : setup->lib);
    return 1;
}

typedef struct {
    PyThreadState *ts; /* the thread state this runtime created for the thread (NULL: it had one) */
} ThreadRecord;

/* Thread exit: delete the thread state created at the thread's first call. glibc has already cleared
 * Python's own thread-specific pointer to it at this point (it clears every key's value before calling
 * destructors), so PyGILState_Release cannot be used; Clear + Delete with the GIL taken explicitly can.
 * Not while the process shuts down (Windows runs fiber-local callbacks then, after ending the other
 * threads, one of which may hold the GIL): the state is left to the process's end. */
static void release_thread_state(void *p)
{
    ThreadRecord *rec = p;
    if (rec && rec->ts && g_ready && !plat_process_exiting() && g_api.IsInitialized()) {
        g_api.Eval_RestoreThread(rec->ts);
        g_api.ThreadState_Clear(rec->ts);
        g_api.Eval_ReleaseThread(rec->ts);
        g_api.ThreadState_Delete(rec->ts);
    }
    free(rec);
}

PyGILState_STATE py_enter(const PyApi *py)
{
    if (!plat_thread_value()) {
        ThreadRecord *rec = malloc(sizeof *rec);
        if (rec) {
            int had_one = py->GILState_GetThisThreadState() != NULL; /* a Python thread, or the initializer */
            py->GILState_Ensure();                  /* creates this thread's state if it has none */
            PyThreadState *ts = py->Eval_SaveThread(); /* keeps it (count stays >= 1), releases the GIL */
            rec->ts = had_one ? NULL : ts;
            plat_set_thread_value(rec);
        }
    }
    return py->GILState_Ensure();
}

void py_leave(const PyApi *py, PyGILState_STATE g) { py->GILState_Release(g); }

const PyApi *py_api(const char *record, char *why, size_t why_size)
{
    char reason[1024];
    void *running;
    Needs needs;
    plat_lock();
    if (g_ready)
        goto done;
    why[0] = '\0';
    /* Every FMU's library is its own copy of this runtime, with its own g_ready and plat_lock: two FMUs
     * instantiated for the first time on two threads would both start CPython (a crash). They meet at the
     * process-wide lock, and the one that gets it second finds the Python the first started in step 1. */
    plat_process_lock();
    /* 1. The process already runs Python -- the host's (fmpy, libcosimpy, ecospy, ...) or one another copy
     *    started: use that interpreter (a process cannot hold two; py_meets_needs says when it is too old). */
    if (plat_running_python(&running)) {
        char missing[64];
        if (resolve(running, &g_api, missing, sizeof missing)) {
            snprintf(g_which, sizeof g_which, "the Python running in this process");
            g_ready = 1;
            goto unlock;
        }
        snprintf(reason, sizeof reason, "the Python running in this process lacks %s; ", missing);
        append(why, why_size, reason);
    } else {
        append(why, why_size, "no Python running in the host; ");
    }
    /* 2. CRANE_COSIM_PYTHON, 3. the usual places of this OS. */
    SearchHost host;
    needs_from_record(record, &needs);
    plat_search_host(&host);
    g_ready = search_python(&host, &needs, start_python, &needs, why + strlen(why), why_size - strlen(why));
    plat_search_release(&host);
unlock:
    plat_process_unlock(g_ready);
done:
    if (g_ready && !g_thread_ready) {
        plat_thread_init(release_thread_state);
        g_thread_ready = 1;
    }
    plat_unlock();
    return g_ready ? &g_api : NULL;
}

PyObject *py_import_from(const PyApi *py, const char *folder, const char *module)
{
    PyObject *sys = py->Import_ImportModule("sys");
    PyObject *path = sys ? py->Object_GetAttrString(sys, "path") : NULL;
    PyObject *entry = py->Unicode_FromString(folder);
    int inserted = path && entry && py->List_Insert(path, 0, entry) == 0;
    PyObject *result = py->Import_ImportModule(module);
    /* Out by identity, not by value: the import may have let another thread insert its own entry (another
     * instance of this FMU: an equal string) or the host may hold this folder too. These list calls run no Python
     * code, so an import error stays pending for the caller. */
    for (Py_ssize_t i = 0, n = inserted ? py->List_Size(path) : 0; i < n; ++i)
        if (py->List_GetItem(path, i) == entry) {
            py->List_SetSlice(path, i, i + 1, NULL);
            break;
        }
    py->DecRef(entry);
    py->DecRef(path);
    py->DecRef(sys);
    return result;
}

PyObject *py_variables_module(const PyApi *py, PyObject *slave, const char *base, const char *library)
{
    char name[512];
    snprintf(name, sizeof name, "%s.variables", library);
    PyObject *cls = py->Object_GetAttrString(slave, "__class__");
    PyObject *mro = cls ? py->Object_GetAttrString(cls, "__mro__") : NULL;
    Py_ssize_t n = mro ? py->Sequence_Size(mro) : 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *c = py->Sequence_GetItem(mro, i);
        PyObject *c_name = c ? py->Object_GetAttrString(c, "__name__") : NULL;
        PyObject *module = c_name ? py->Object_GetAttrString(c, "__module__") : NULL;
        const char *b = c_name ? py->Unicode_AsUTF8AndSize(c_name, NULL) : NULL;
        const char *m = module ? py->Unicode_AsUTF8AndSize(module, NULL) : NULL;
        const char *dot = m ? strrchr(m, '.') : NULL; /* "<package>.fmi2slave" */
        int found = b && dot && strcmp(b, base) == 0;
        if (found)
            snprintf(name, sizeof name, "%.*s.variables", (int)(dot - m), m);
        py->DecRef(module);
        py->DecRef(c_name);
        py->DecRef(c);
        if (found)
            break;
    }
    py->Err_Clear();
    py->DecRef(mro);
    py->DecRef(cls);
    return py->Import_ImportModule(name);
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

int py_meets_needs(const PyApi *py, const char *record, char *why, size_t why_size)
{
    Needs needs;
    char name[96], bound[96], err[1024];
    const char *advice = ". Install it there, or set CRANE_COSIM_PYTHON to a Python that has it (a host that "
                         "runs Python itself always uses its own)";
    needs_from_record(record, &needs);
    int minor = version_minor(py->GetVersion());
    if (minor >= 0 && minor < needs.min_minor) {
        snprintf(why, why_size, "%s is Python %.16s, older than the 3.%d this FMU needs", g_which, py->GetVersion(),
                 needs.min_minor);
        return 0;
    }
    for (int p = 0; p < needs.n_packages; ++p) {
        requirement_parts(needs.packages[p], name, sizeof name, bound, sizeof bound);
        for (char *c = name; *c; ++c) /* the import name of a distribution name: "PyYAML" aside, as pip has it */
            *c = (char)(*c == '-' ? '_' : (*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c));
        PyObject *module = py->Import_ImportModule(name);
        if (!module) {
            py_error_text(py, err, sizeof err);
            snprintf(why, why_size, "%s cannot import %s, which this FMU needs (%s): %s%s", g_which, name,
                     needs.packages[p], err, advice);
            return 0;
        }
        PyObject *version = bound[0] ? py->Object_GetAttrString(module, "__version__") : NULL;
        const char *text = version ? py->Unicode_AsUTF8AndSize(version, NULL) : NULL;
        int old = text && !version_at_least(text, bound);
        if (old)
            snprintf(why, why_size, "%s has %s %.32s, older than the %s this FMU needs%s", g_which, name, text,
                     bound, advice);
        py->Err_Clear(); /* a module without __version__ is taken as it is */
        if (version)
            py->DecRef(version);
        py->DecRef(module);
        if (old)
            return 0;
    }
    return 1;
}
