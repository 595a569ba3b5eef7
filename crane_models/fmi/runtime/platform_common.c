/* What the platform layer computes the same way on every system, from the system-specific pieces
 * (platform_posix.c, platform_windows.c). */
#include "platform.h"

#include <stdio.h>
#include <string.h>

void plat_own_stem(char *out, size_t size)
{
    char path[4096];
    plat_own_path(path, sizeof path);
    const char *base = strrchr(path, '/');
#if defined(_WIN32)
    const char *back = strrchr(path, '\\');
    if (!base || (back && back > base))
        base = back;
#endif
    snprintf(out, size, "%s", base ? base + 1 : path);
    char *dot = strchr(out, '.');
    if (dot)
        *dot = '\0';
}
