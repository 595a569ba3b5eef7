/* A stand-in for a Windows CPython DLL (python3X.dll) for tests/test_runtime_platforms.py under wine, where
 * no real Windows CPython can be installed from PyPI: it exports every function the FMU runtime resolves
 * (crane_models/fmi/runtime/pyapi.c), "initializes" by noting the environment it sees, tracks which threads
 * have a thread state as CPython does (the initializing thread has one; PyGILState_Ensure gives one to a
 * thread without; PyThreadState_Delete takes it away), counts the states made and deleted, and fails
 * every import but `sys` with a message reporting what it saw.
 * So a test reads, from the runtime's own error message, that the DLL was found, loaded and initialized
 * with PYTHONHOME set and the program it runs as, and that thread states are released when host threads end. */
#include <windows.h>

#include <stdio.h>
#include <string.h>

#define API __declspec(dllexport)
typedef struct { int tag; } Obj;
static Obj generic, type_obj, value_obj, name_obj, text_obj, thread_state;
static int initialized, error_set, made, deleted;
static DWORD has_state = TLS_OUT_OF_INDEXES; /* per thread: non-NULL when the thread has a state */

static void give_state(void)
{
    if (has_state == TLS_OUT_OF_INDEXES)
        has_state = TlsAlloc();
    if (!TlsGetValue(has_state)) {
        TlsSetValue(has_state, &thread_state);
        ++made;
    }
}
static char seen[2048] = "not initialized by the runtime", message[4096];

API Obj _Py_NoneStruct;

static void note_env(const wchar_t *name, const char *label)
{
    char value[512] = "unset";
    const wchar_t *w = _wgetenv(name);
    if (w)
        WideCharToMultiByte(CP_UTF8, 0, w, -1, value, sizeof value, NULL, NULL);
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "%s%s=%s", n ? ", " : "", label, value);
}

static char program[512] = "unset";

API const char *Py_GetVersion(void) { return "3.12.0 (a stand-in)"; }
API void Py_SetProgramName(const wchar_t *name)
{
    WideCharToMultiByte(CP_UTF8, 0, name, -1, program, sizeof program, NULL, NULL);
}
API int Py_IsInitialized(void) { return initialized; }
API void Py_InitializeEx(int signals)
{
    (void)signals;
    seen[0] = '\0';
    note_env(L"PYTHONHOME", "PYTHONHOME");
    note_env(L"PYTHONPATH", "PYTHONPATH");
    note_env(L"PYTHONNOUSERSITE", "PYTHONNOUSERSITE");
    note_env(L"__PYVENV_LAUNCHER__", "__PYVENV_LAUNCHER__");
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, ", program=%s", program);
    initialized = 1;
    give_state();
}
API int PyGILState_Ensure(void) { give_state(); return 0; }
API void PyGILState_Release(int s) { (void)s; }
API void *PyEval_SaveThread(void) { return &thread_state; }
API void PyEval_RestoreThread(void *t) { (void)t; }
API void PyEval_ReleaseThread(void *t) { (void)t; }
API void *PyGILState_GetThisThreadState(void)
{
    return has_state == TLS_OUT_OF_INDEXES ? NULL : TlsGetValue(has_state);
}
API void PyThreadState_Clear(void *t) { (void)t; }
API void PyThreadState_Delete(void *t)
{
    (void)t;
    TlsSetValue(has_state, NULL);
    ++deleted;
}
API Obj *PyImport_ImportModule(const char *name)
{
    if (strcmp(name, "sys") == 0)
        return &generic;
    snprintf(message, sizeof message, "fake Python cannot import %s (%s; thread states made %d, deleted %d)",
             name, seen, made, deleted);
    error_set = 1;
    return NULL;
}
API Obj *PyObject_GetAttrString(Obj *o, const char *a)
{
    return o == &type_obj && !strcmp(a, "__name__") ? &name_obj : &generic;
}
API int PyObject_SetAttrString(Obj *o, const char *a, Obj *v) { (void)o; (void)a; (void)v; return 0; }
API Obj *PyObject_Call(Obj *f, Obj *a, Obj *k) { (void)f; (void)a; (void)k; return NULL; }
API Obj *PyObject_CallObject(Obj *f, Obj *a) { (void)f; (void)a; return NULL; }
API Obj *PyObject_Str(Obj *o) { return o == &value_obj ? &text_obj : &generic; }
API int PyObject_IsTrue(Obj *o) { (void)o; return 0; }
API int PyObject_IsInstance(Obj *o, Obj *c) { (void)o; (void)c; return 0; }
API Obj *PyObject_GetItem(Obj *o, Obj *k) { (void)o; (void)k; return NULL; }
API ptrdiff_t PyObject_Size(Obj *o) { (void)o; return 0; }
API int PyMapping_HasKeyString(Obj *o, const char *k) { (void)o; (void)k; return 0; }
API void Py_DecRef(Obj *o) { (void)o; }
API void Py_IncRef(Obj *o) { (void)o; }
API Obj *PyFloat_FromDouble(double v) { (void)v; return &generic; }
API double PyFloat_AsDouble(Obj *o) { (void)o; return 0.0; }
API Obj *PyLong_FromLong(long v) { (void)v; return &generic; }
API Obj *PyLong_FromVoidPtr(void *p) { (void)p; return &generic; }
API long PyLong_AsLong(Obj *o) { (void)o; return 0; }
API Obj *PyBool_FromLong(long v) { (void)v; return &generic; }
API Obj *PyList_New(ptrdiff_t n) { (void)n; return &generic; }
API ptrdiff_t PyList_Size(Obj *o) { (void)o; return 0; }
API Obj *PyList_GetItem(Obj *o, ptrdiff_t i) { (void)o; (void)i; return NULL; }
API int PyList_SetItem(Obj *o, ptrdiff_t i, Obj *v) { (void)o; (void)i; (void)v; return 0; }
API int PyList_SetSlice(Obj *o, ptrdiff_t a, ptrdiff_t b, Obj *v) { (void)o; (void)a; (void)b; (void)v; return 0; }
API int PyList_Insert(Obj *o, ptrdiff_t i, Obj *v) { (void)o; (void)i; (void)v; return 0; }
API Obj *PySequence_GetItem(Obj *o, ptrdiff_t i) { (void)o; (void)i; return NULL; }
API ptrdiff_t PySequence_Size(Obj *o) { (void)o; return 0; }
API Obj *PyTuple_New(ptrdiff_t n) { (void)n; return &generic; }
API int PyTuple_SetItem(Obj *o, ptrdiff_t i, Obj *v) { (void)o; (void)i; (void)v; return 0; }
API Obj *PyDict_New(void) { return &generic; }
API int PyDict_SetItemString(Obj *o, const char *k, Obj *v) { (void)o; (void)k; (void)v; return 0; }
API Obj *PyBytes_FromStringAndSize(const char *s, ptrdiff_t n) { (void)s; (void)n; return &generic; }
API int PyBytes_AsStringAndSize(Obj *o, char **s, ptrdiff_t *n) { (void)o; (void)s; (void)n; return -1; }
API Obj *PyUnicode_FromString(const char *s) { (void)s; return &generic; }
API const char *PyUnicode_AsUTF8AndSize(Obj *o, ptrdiff_t *n)
{
    (void)n;
    return o == &name_obj ? "ImportError" : o == &text_obj ? message : "";
}
API Obj *PyErr_Occurred(void) { return error_set ? &type_obj : NULL; }
API void PyErr_Fetch(Obj **t, Obj **v, Obj **tb)
{
    *t = error_set ? &type_obj : NULL;
    *v = error_set ? &value_obj : NULL;
    *tb = NULL;
    error_set = 0;
}
API void PyErr_Clear(void) { error_set = 0; }
