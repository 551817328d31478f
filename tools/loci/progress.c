/*
 * A progress line on stderr for the loci tool's long operations (`loci
 * bench` runs, `loci ckpt drain` and `verify`). Drawn only when stderr is a
 * terminal, or when LOCI_PROGRESS=1 asks for it (LOCI_PROGRESS=0: never):
 * pipes, logs and the tests' captured output stay clean. Each call redraws
 * the line in place ('\r'); a bar is redrawn at most 10 times a second, and
 * always when it is complete.
 */
#include "commands.h"
#include "units.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINE = 78, BAR = 24 };

static int drawn; /* characters on the line now */

bool progress_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *env = getenv("LOCI_PROGRESS");
        on = env && *env ? strcmp(env, "0") != 0 : isatty(STDERR_FILENO);
    }
    return on;
}

static void draw(const char *text)
{
    int n = (int)strlen(text);
    fprintf(stderr, "\r%s%*s", text, drawn > n ? drawn - n : 0, ""); /* over what the previous line left */
    fflush(stderr);
    drawn = n;
}

void progress_text(const char *fmt, ...)
{
    if (!progress_on())
        return;
    char text[LINE + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    draw(text);
}

void progress_bar(const char *label, uint64_t done, uint64_t total)
{
    static double start, last;
    if (!progress_on())
        return;
    double now = bench_now_s();
    if (drawn == 0 || start == 0)
        start = now;
    if (done < total && now - last < 0.1 && drawn)
        return;
    last = now;
    double frac = total ? (double)done / (double)total : 1;
    char bar[BAR + 1], d[32], t[32], text[LINE + 64];
    for (int i = 0; i < BAR; i++)
        bar[i] = i < (int)(frac * BAR) ? '#' : '.';
    bar[BAR] = 0;
    double secs = now - start;
    int n = snprintf(text, sizeof text, "%s [%s] %3.0f%% %s of %s", label, bar, frac * 100,
                     units_format_size(done, d, sizeof d), units_format_size(total, t, sizeof t));
    if (secs >= 0.5 && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, ", %.0f MB/s", (double)done / secs / 1e6);
    draw(text);
}

void progress_end(void)
{
    if (drawn)
        fputc('\n', stderr);
    drawn = 0;
}

void progress_clear(void)
{
    if (drawn)
        fprintf(stderr, "\r%*s\r", drawn, "");
    drawn = 0;
}
