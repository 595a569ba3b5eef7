/* The runtime's Python search (crane_models/fmi/runtime/pysearch.c) over a fake file system, so that the
 * macOS and Windows search runs on Linux (tests/test_runtime_search.py). The scenario file, one item a
 * line:
 *   os linux|macos|windows       platform <tuple of the binary>     accept <library the attempt accepts>
 *   file <path>  exe <path>      text <path> := <content>           env <NAME>=<value>
 *   reg <where> := <install>     record <key=value line of the build's record>
 * Folders are implied by the files under them. Prints one "try lib=... | home=... | path=..." line per
 * attempt, then "result 0|1" and "why <message>". */
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

static int kind(void *ctx, const char *p)
{
    Fake *f = ctx;
    size_t len = strlen(p);
    for (int i = 0; i < f->n; ++i) {
        const Item *it = &f->items[i];
        int is_path = !strcmp(it->kind, "file") || !strcmp(it->kind, "exe") || !strcmp(it->kind, "text");
        if (!is_path)
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
        if (strcmp(f->items[i].kind, "file") && strcmp(f->items[i].kind, "exe") && strcmp(f->items[i].kind, "text"))
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

static int attempt(void *user, const PythonSetup *setup, char *why, size_t size)
{
    Fake *f = user;
    printf("try lib=%s | home=%s | path=%s\n", setup->lib, setup->home, setup->path);
    if (strcmp(setup->lib, f->accept) == 0)
        return 1;
    snprintf(why, size, "refused by the test");
    return 0;
}

int main(int argc, char **argv)
{
    static Fake fake;
    static char record[65536], why[16384];
    char line[2200], platform[64] = "x86_64-linux";
    int has_record = 0;
    SearchHost host = {OS_LINUX, &fake, kind, glob_nth, read_text, env, registry};
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
        else if (!strcmp(line, "platform"))
            snprintf(platform, sizeof platform, "%s", rest);
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
        }
    }
    fclose(in);
    int ok = search_python(&host, has_record ? record : NULL, platform, attempt, &fake, why, sizeof why);
    printf("result %d\nwhy %s\n", ok, why);
    return 0;
}
