/* A win64 program for tests/test_platforms.py (run under wine): loads a DLL with LoadLibraryW, as an FMU's
 * Python does with ctypes on Windows, and asks GetProcAddress for each name on its command line, printing
 * "found <name>" or "missing <name>". Exit status 0, or 2 when the DLL does not load.
 * Arguments: <dll> <name>... */
#include <windows.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    wchar_t path[4096];
    if (argc < 2 || !MultiByteToWideChar(CP_UTF8, 0, argv[1], -1, path, 4096))
        return 2;
    HMODULE lib = LoadLibraryW(path);
    if (!lib) {
        printf("LoadLibraryW failed: %lu\n", (unsigned long)GetLastError());
        return 2;
    }
    for (int i = 2; i < argc; ++i)
        printf("%s %s\n", GetProcAddress(lib, argv[i]) ? "found" : "missing", argv[i]);
    FreeLibrary(lib);
    return 0;
}
