/* The runtime's Python search (crane_models/fmi/runtime/pysearch.c, pysetup.c, pyplaces.c) over a fake file
 * system, so that the search of every OS runs on Linux (tests/test_runtime_search.py). The scenario file, one item
 * a line:
 *   os linux|macos|windows       accept <library the attempt accepts>
 *   file <path>  exe <path>      text <path> := <content>           env <NAME>=<value>
 *   link <path> := <target>      reg <where> := <install>           record <key=value line of the FMU's record>
 * A text's "\n" starts a new line. Folders are implied by the files under them. Prints one
 * "try lib=... | home=... | exe=... | venv=..." line per attempt, then "result 0|1" and "why <message>". */
#define _GNU_SOURCE
#include "pysearch.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 256

typedef struct {
    char kind[8];
    char path[1024];
    char value[1024];
} Item;

typedef struct {
    Item items[MAX_ITEMS];
    int n;
    char accept[1024];
} Fake;

static int is_path(const Item *it)
{
    return !strcmp(it->kind, "file") || !strcmp(it->kind, "exe") || !strcmp(it->kind, "text") ||
           !strcmp(it->kind, "link");
}

/* A link's target (links to links followed), else the path itself. */
static const char *target(const Fake *f, const char *p)
{
    for (int hops = 0; hops < 8; ++hops) {
        int found = 0;
        for (int i = 0; i < f->n && !found; ++i)
            if (!strcmp(f->items[i].kind, "link") && !strcmp(f->items[i].path, p))
                p = f->items[i].value, found = 1;
        if (!found)
            break;
    }
    return p;
}

static int kind(void *ctx, const char *p)
{
    Fake *f = ctx;
    p = target(f, p);
    size_t len = strlen(p);
    for (int i = 0; i < f->n; ++i) {
        const Item *it = &f->items[i];
        if (!is_path(it) || !strcmp(it->kind, "link"))
            continue;
        if (!strcmp(it->path, p))
            return !strcmp(it->kind, "exe") ? PATH_EXECUTABLE : PATH_FILE;
        if (!strncmp(it->path, p, len) && (it->path[len] == '/' || it->path[len] == '\\'))
            return PATH_DIR;
    }
    return PATH_MISSING;
}

static void slashes(char *s)
{
    for (; *s; ++s)
        if (*s == '\\')
            *s = '/';
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every file and implied folder whose path matches the pattern (wildcards within one component). */
static int glob_nth(void *ctx, const char *pattern, int nth, char *out, size_t size)
{
    Fake *f = ctx;
    char pat[1024], *found[4 * MAX_ITEMS];
    int n = 0;
    snprintf(pat, sizeof pat, "%s", pattern);
    slashes(pat);
    for (int i = 0; i < f->n; ++i) {
        if (!is_path(&f->items[i]))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s", f->items[i].path);
        for (;;) { /* the file, then each folder above it */
            char cmp[1024];
            snprintf(cmp, sizeof cmp, "%s", path);
            slashes(cmp);
            if (fnmatch(pat, cmp, FNM_PATHNAME | FNM_NOESCAPE) == 0) {
                int dup = 0;
                for (int k = 0; k < n; ++k)
                    dup |= !strcmp(found[k], path);
                if (!dup)
                    found[n++] = strdup(path);
            }
            char *s = strrchr(path, '/'), *b = strrchr(path, '\\');
            if (b && (!s || b > s))
                s = b;
            if (!s || s == path)
                break;
            *s = '\0';
        }
    }
    qsort(found, (size_t)n, sizeof *found, by_name);
    if (nth < n)
        snprintf(out, size, "%s", found[nth]);
    for (int k = 0; k < n; ++k)
        free(found[k]);
    return nth < n;
}

static int read_text(void *ctx, const char *path, char *buf, size_t size)
{
    Fake *f = ctx;
    for (int i = 0; i < f->n; ++i)
        if (!strcmp(f->items[i].kind, "text") && !strcmp(f->items[i].path, path)) {
            snprintf(buf, size, "%s\n", f->items[i].value);
            return 1;
        }
    return 0;
}

static const char *env(void *ctx, const char *name)
{
    Fake *f = ctx;
    for (int i = 0; i < f->n; ++i)
        if (!strcmp(f->items[i].kind, "env") && !strcmp(f->items[i].path, name))
            return f->items[i].value;
    return NULL;
}

static int registry(void *ctx, int nth, char *where, size_t wsize, char *install, size_t isize)
{
    Fake *f = ctx;
    for (int i = 0; i < f->n; ++i)
        if (!strcmp(f->items[i].kind, "reg") && nth-- == 0) {
            snprintf(where, wsize, "%s", f->items[i].path);
            snprintf(install, isize, "%s", f->items[i].value);
            return 1;
        }
    return 0;
}

static int resolve(void *ctx, const char *path, char *out, size_t size)
{
    const char *real = target(ctx, path);
    if (kind(ctx, real) == PATH_MISSING)
        return 0;
    snprintf(out, size, "%s", real);
    return 1;
}

static int attempt(void *user, const PythonSetup *setup, char *why, size_t size)
{
    Fake *f = user;
    printf("try lib=%s | home=%s | exe=%s | venv=%s\n", setup->lib, setup->home, setup->exe, setup->venv);
    if (strcmp(setup->lib, f->accept) == 0)
        return 1;
    snprintf(why, size, "refused by the test");
    return 0;
}

int main(int argc, char **argv)
{
    static Fake fake;
    static char record[65536], why[16384];
    char line[2200];
    int has_record = 0;
    Needs needs;
    SearchHost host = {OS_LINUX, &fake, kind, glob_nth, read_text, env, registry, resolve};
    FILE *in = argc > 1 ? fopen(argv[1], "r") : NULL;
    if (!in)
        return 2;
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *space = strchr(line, ' ');
        if (!space)
            continue;
        *space = '\0';
        const char *rest = space + 1;
        if (!strcmp(line, "os"))
            host.os = !strcmp(rest, "windows") ? OS_WINDOWS : !strcmp(rest, "macos") ? OS_MACOS : OS_LINUX;
        else if (!strcmp(line, "accept"))
            snprintf(fake.accept, sizeof fake.accept, "%s", rest);
        else if (!strcmp(line, "record")) {
            strcat(record, rest);
            strcat(record, "\n");
            has_record = 1;
        } else if (fake.n < MAX_ITEMS) {
            Item *it = &fake.items[fake.n++];
            const char *sep = strstr(rest, " := ");
            if (!strcmp(line, "env"))
                sep = strchr(rest, '=');
            snprintf(it->kind, sizeof it->kind, "%.7s", line);
            snprintf(it->path, sizeof it->path, "%.*s", sep ? (int)(sep - rest) : (int)strlen(rest), rest);
            if (sep)
                snprintf(it->value, sizeof it->value, "%s", sep + (line[0] == 'e' && line[1] == 'n' ? 1 : 4));
            for (char *nl = strstr(it->value, "\\n"); nl && !strcmp(line, "text"); nl = strstr(nl, "\\n")) {
                *nl = '\n';
                memmove(nl + 1, nl + 2, strlen(nl + 2) + 1);
            }
        }
    }
    fclose(in);
    needs_from_record(has_record ? record : NULL, &needs);
    int ok = search_python(&host, &needs, attempt, &fake, why, sizeof why);
    printf("result %d\nwhy %s\n", ok, why);
    return 0;
}
