/* Kernel harness: loads a compiled kernel (crane_models/core/native, any platform's build) at run time and
 * calls its entry points on a fixed three-body crane (slew, luff, telescope) at fixed states, printing every
 * result with 17 significant digits, one "name index value" line each. Built for the kernel's own platform
 * and run natively, under qemu-aarch64 or under wine; tests/test_platforms.py compares the runs.
 *
 * Usage: harness PATH_TO_KERNEL. Exit status 0, or 2 when the kernel cannot be loaded or lacks an entry point.
 * The structs come from multibody.h (the kernel's binary interface); this file is a client of it, as
 * core/native/system.py is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
static void *open_library(const char *path) { return (void *)LoadLibraryA(path); }
static void *find_symbol(void *lib, const char *name) { return (void *)GetProcAddress((HMODULE)lib, name); }
#else
#include <dlfcn.h>
static void *open_library(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *find_symbol(void *lib, const char *name) { return dlsym(lib, name); }
#endif

#include "../../crane_models/core/native/multibody.h"


typedef int (*evaluate_fn)(const mbs_model *, const double *, const double *, const double *, double *, double *);
typedef int (*derivative_fn)(const mbs_model *, const mbs_effort_law *, const double *, double *, double *);
typedef int (*solve_fn)(int, int, double *, const double *, double *);
typedef int (*wrenches_fn)(const mbs_model *, const double *, const double *, double *);
typedef int (*integrate_fn)(const mbs_model *, const mbs_effort_law *, const double *, const void *,
                            const mbs_tableau *, mbs_stepper *, double, double, double *, double *, double *, int,
                            int, int *, double *, double *, const mbs_lengths *);

enum { NB = 3, N = 3, ROOM = 1024 }; /* ROOM: doubles per record or work array, more than the model needs */

/* The crane: body 0 slews about z, body 1 luffs about y at the slew bearing's top, body 2 telescopes along
 * x; masses, inertias and lengths of a small knuckle-free boom crane [kg, kg m^2, m]. */
static const int parent[NB] = {-1, 0, 1}, coord[NB] = {0, 1, 2}, jtype[NB] = {1, 1, 2}, custom_map[NB] = {0, 0, 0};
static const int col_ptr[NB + 1] = {0, 1, 3, 6}, col_idx[6] = {0, 0, 1, 0, 1, 2};
static const double map_par[NB * 9] = {0};
static const double axis[NB * 3] = {0, 0, 1, 0, 1, 0, 1, 0, 0};
static const double offset[NB * 3] = {0, 0, 0, 0.5, 0, 1.2, 0, 0, 0};
static const double rotation0[NB * 9] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                                         1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double mass[NB] = {1000.0, 500.0, 200.0};
static const double inertia[NB * 9] = {800, 0, 0, 0, 900, 0, 0, 0, 300, 20, 0, 0, 0, 700, 0, 0, 0, 700,
                                       5, 0, 0, 0, 150, 0, 0, 0, 150};
static const double com[NB * 3] = {0, 0, 0.6, 2.0, 0, 0, 1.5, 0, 0};

/* The fixed states [q | u]: at rest, a general state, and one with a large slew angle and speeds. */
static const double states[][2 * N] = {
    {0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {0.3, 0.4, 1.2, 0.1, -0.2, 0.3},
    {-2.5, 1.1, 3.0, 1.5, 0.7, -0.4},
};

static void print_array(const char *name, int state, const double *a, int count) {
    for (int i = 0; i < count; i++) printf("%s %d %d %.17g\n", name, state, i, a[i]);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s KERNEL_LIBRARY\n", argv[0]);
        return 2;
    }
    void *lib = open_library(argv[1]);
    if (!lib) {
        fprintf(stderr, "cannot load the kernel %s\n", argv[1]);
        return 2;
    }
    evaluate_fn evaluate = (evaluate_fn)find_symbol(lib, "mbs_evaluate");
    derivative_fn derivative = (derivative_fn)find_symbol(lib, "mbs_derivative");
    solve_fn solve = (solve_fn)find_symbol(lib, "mbs_solve_spd");
    wrenches_fn wrenches = (wrenches_fn)find_symbol(lib, "mbs_inertial_wrenches");
    integrate_fn integrate = (integrate_fn)find_symbol(lib, "mbs_integrate");
    if (!evaluate || !derivative || !solve || !wrenches || !integrate) {
        fprintf(stderr, "the kernel %s lacks an entry point\n", argv[1]);
        return 2;
    }
    const mbs_model model = {NB, N, 1, parent, coord, jtype, custom_map, map_par, axis, offset, rotation0,
                             mass, inertia, com, col_ptr, col_idx};
    static const double zero[N] = {0}, linear[N] = {0.0, -2.0e4, -5.0e3}, damping[N] = {-300.0, -800.0, -100.0};
    const mbs_effort_law law = {0, 9.81, zero, NULL, linear, zero, damping, NULL, NULL, NULL, NULL, 0};
    static double rec[ROOM], work[ROOM], out[ROOM];
    const int head = record_head(&model), outputs = 9 * NB + 6 * NB + 2 * 6 * NB * N + 6 * NB + 2 * NB
                                                    + NB * N + 3 * NB * N + 3 * N * N + 2 * N + N * N + 6 * NB;
    const int states_count = (int)(sizeof states / sizeof states[0]);
    for (int s = 0; s < states_count; s++) {
        memset(rec, 0, sizeof rec);
        memcpy(rec, states[s], sizeof(double) * 2 * N);
        printf("evaluate_code %d 0 %d\n", s, evaluate(&model, rec, rec + N, rec + 4 * N, rec + head, work));
        print_array("evaluate", s, rec + head, outputs);
        const double udot[N] = {0.5, -1.0, 0.25};
        printf("wrenches_code %d 0 %d\n", s, wrenches(&model, rec, udot, out));
        print_array("wrenches", s, out, 6 * NB);
        const mbs_out o = layout_of(&model, rec + head);
        double M[N * N], b[N] = {1.0, -2.0, 3.0};
        memcpy(M, o.M, sizeof M);
        printf("solve_code %d 0 %d\n", s, solve(N, 1, M, b, out));
        print_array("solve", s, out, N);
        memset(rec, 0, sizeof rec);
        memcpy(rec, states[s], sizeof(double) * 2 * N);
        printf("derivative_code %d 0 %d\n", s, derivative(&model, &law, zero, rec, work));
        print_array("derivative", s, rec + N, 2 * N);
    }
    /* Two seconds from the general state with the Heun-Euler pair (orders 2/1), as mbs_integrate steps an FMU. */
    static const double a[4] = {0, 0, 1, 0}, c[2] = {0, 1}, e[2] = {-0.5, 0.5};
    const mbs_tableau tableau = {2, 1, a, c, e, NULL};
    mbs_stepper stepper = {1e-6, 1e-9, 0.01, 1e-9, 0.0, 0.0, 0, 0, 0, 1000000};  /* max_steps: ample */
    double y[2 * N], k1[2 * N];
    memcpy(y, states[1], sizeof y);
    memset(rec, 0, sizeof rec);
    memcpy(rec, y, sizeof y);
    derivative(&model, &law, zero, rec, work);
    memcpy(k1, rec + N, sizeof k1);
    static double recs[3 * ROOM];
    int final = -1;
    const int size = head + outputs;
    const mbs_lengths lengths = {2 * N, 2 * N, 3 * ROOM, ROOM};
    printf("integrate_code 0 0 %d\n", integrate(&model, &law, zero, NULL, &tableau, &stepper, 0.0, 2.0, y, k1,
                                                recs, size, ROOM, &final, work, out, &lengths));
    print_array("integrate", 0, y, 2 * N);
    printf("integrate_steps 0 0 %ld\n", stepper.accepted);
    return 0;
}
