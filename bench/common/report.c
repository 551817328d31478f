/* Progress lines on stderr and JSON rows, as every benchmark writes them (report.h). */
#include "report.h"
#include "timing.h"

#include <stdarg.h>
#include <stdbool.h>

void bench_progress(const char *fmt, ...)
{
    static double start;
    if (start == 0)
        start = clock_mono_s();
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%7.1f s] ", clock_mono_s() - start);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void bench_json_row(FILE *json, const char *fmt, ...)
{
    static bool first = true;
    if (!json)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs(first ? "\n  {" : ",\n  {", json);
    vfprintf(json, fmt, ap);
    fputc('}', json);
    va_end(ap);
    first = false;
}
