/*
 * Helpers of the MPI tests: CHECK that names the rank and line, loci's
 * live bytes (leak checks), and capture of stderr to check what the shim
 * said about a refused call.
 */
#ifndef LOCI_MPI_CHECK_H
#define LOCI_MPI_CHECK_H

#include <loci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_rank = -1;

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", check_rank, __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                      \
        }                                                                                                      \
    } while (0)

/* Usable bytes of every live loci block, over all targets. */
static inline uint64_t loci_live_bytes(void)
{
    uint64_t sum = 0;
    for (int i = 0; i < loci_target_count(); i++) {
        loci_stats_t st;
        if (loci_target_stats(loci_target_at(i), &st) == 0)
            sum += st.bytes_in_use;
    }
    return sum;
}

/* MPI_Info with one key, or MPI_INFO_NULL for key NULL. */
static inline MPI_Info info1(const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    return info;
}

static inline void info_free(MPI_Info *info)
{
    if (*info != MPI_INFO_NULL)
        MPI_Info_free(info);
}

/* stderr into a temporary file between capture_begin and capture_end. */
static int capture_saved = -1;
static FILE *capture_file;

static inline void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    capture_saved = dup(2);
    dup2(fileno(capture_file), 2);
}

/* What was written to stderr since capture_begin (static buffer), also
 * echoed to the real stderr so test logs show it. */
static inline const char *capture_end(void)
{
    static char buf[8192];
    fflush(stderr);
    dup2(capture_saved, 2);
    close(capture_saved);
    rewind(capture_file);
    size_t n = fread(buf, 1, sizeof buf - 1, capture_file);
    buf[n] = '\0';
    fclose(capture_file);
    fputs(buf, stderr);
    return buf;
}

#endif
