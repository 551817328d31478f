/*
 * hydro: a small bandwidth-bound hydrodynamics proxy, in the spirit of the
 * LULESH port of Roussel et al. (IWOMP 2020): an explicit compressible-flow
 * step on an N^3 grid (equation of state, pressure forces, velocity and
 * compression updates, a CFL time step), OpenMP parallel, with its field
 * arrays placed through OpenMP 5 allocators:
 *
 *   - the arrays the bandwidth-bound kernels stream (equation of state and
 *     forces, like LULESH's EvalEOSForElems and CalcForceNodes) come from an
 *     allocator on omp_high_bw_mem_space with fallback=default_mem_fb;
 *   - the rest from omp_default_mem_alloc.
 *
 * It is plain OpenMP: run it as it is, or under loci's OpenMP front end
 * (LD_PRELOAD=libloci-omp.so) to have the memory spaces placed by intent.
 * Where there is no high-bandwidth memory the fallback keeps everything in
 * DRAM and the program runs unchanged. It reports its figure of merit
 * (zones per second, as LULESH) and the NUMA node(s) each array landed on.
 *
 *   hydro [-n CELLS_PER_SIDE] [-i STEPS]       (default 80, 20)
 */
#include <dlfcn.h> /* dladdr: _GNU_SOURCE, which the build defines */
#include <math.h>
#include <numaif.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HIGH_BW, DEFAULT };
static const char *const space_names[] = {"high_bw", "default"};

/* The fields, and where each is asked for. */
enum { RHO, E, P, SS, FX, FY, FZ, XD, YD, ZD, Q, MASS, X, Y, Z, DIV, NFIELDS };
static const struct {
    const char *name;
    int space;
} fields[NFIELDS] = {
    [RHO] = {"rho", HIGH_BW}, [E] = {"e", HIGH_BW},     [P] = {"p", HIGH_BW},   [SS] = {"ss", HIGH_BW},
    [FX] = {"fx", HIGH_BW},   [FY] = {"fy", HIGH_BW},   [FZ] = {"fz", HIGH_BW}, [XD] = {"xd", HIGH_BW},
    [YD] = {"yd", HIGH_BW},   [ZD] = {"zd", HIGH_BW},   [Q] = {"q", DEFAULT},   [MASS] = {"mass", DEFAULT},
    [X] = {"x", DEFAULT},     [Y] = {"y", DEFAULT},     [Z] = {"z", DEFAULT},   [DIV] = {"div", DEFAULT},
};

static double *f[NFIELDS];
static long n; /* cells per side */

#define AT(i, j, k) (((i) * n + (j)) * n + (k))
/* Neighbour index along one axis, clamped at the walls (reflective enough for a proxy). */
#define UP(i) ((i) + 1 < n ? (i) + 1 : (i))
#define DN(i) ((i) > 0 ? (i) - 1 : (i))

static const double gamma_gas = 1.4, dx = 1.0, cfl = 0.3, q_lin = 0.06, q_quad = 1.2;

/* Equation of state: p and sound speed from density and energy (streams 4 arrays). */
static void eos(long cells)
{
#pragma omp parallel for schedule(static)
    for (long c = 0; c < cells; c++) {
        f[P][c] = (gamma_gas - 1.0) * f[RHO][c] * f[E][c];
        f[SS][c] = sqrt(gamma_gas * f[P][c] / f[RHO][c]);
    }
}

/* Time step from the CFL condition. */
static double time_step(long cells)
{
    double fastest = 1e-12;
#pragma omp parallel for schedule(static) reduction(max : fastest)
    for (long c = 0; c < cells; c++) {
        double v = sqrt(f[XD][c] * f[XD][c] + f[YD][c] * f[YD][c] + f[ZD][c] * f[ZD][c]);
        fastest = fmax(fastest, f[SS][c] + v);
    }
    return cfl * dx / fastest;
}

/* Pressure and viscous forces: a 7-point stencil on p + q. */
static void forces(void)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            for (long k = 0; k < n; k++) {
                const double *p = f[P], *q = f[Q];
                long c = AT(i, j, k);
                f[FX][c] = -0.5 * dx * dx * (p[AT(UP(i), j, k)] + q[AT(UP(i), j, k)] - p[AT(DN(i), j, k)] - q[AT(DN(i), j, k)]);
                f[FY][c] = -0.5 * dx * dx * (p[AT(i, UP(j), k)] + q[AT(i, UP(j), k)] - p[AT(i, DN(j), k)] - q[AT(i, DN(j), k)]);
                f[FZ][c] = -0.5 * dx * dx * (p[AT(i, j, UP(k))] + q[AT(i, j, UP(k))] - p[AT(i, j, DN(k))] - q[AT(i, j, DN(k))]);
            }
}

/* Velocities from forces, positions from velocities. */
static void move(long cells, double dt)
{
#pragma omp parallel for schedule(static)
    for (long c = 0; c < cells; c++) {
        double inv = dt / f[MASS][c];
        f[XD][c] += inv * f[FX][c];
        f[YD][c] += inv * f[FY][c];
        f[ZD][c] += inv * f[FZ][c];
        f[X][c] += dt * f[XD][c];
        f[Y][c] += dt * f[YD][c];
        f[Z][c] += dt * f[ZD][c];
    }
}

/* Compression: velocity divergence (stencil), then density, energy and viscosity. */
static void compress(long cells, double dt)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            for (long k = 0; k < n; k++)
                f[DIV][AT(i, j, k)] = 0.5 / dx * (f[XD][AT(UP(i), j, k)] - f[XD][AT(DN(i), j, k)] +
                                                  f[YD][AT(i, UP(j), k)] - f[YD][AT(i, DN(j), k)] +
                                                  f[ZD][AT(i, j, UP(k))] - f[ZD][AT(i, j, DN(k))]);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < cells; c++) {
        double div = f[DIV][c], rho = f[RHO][c];
        f[E][c] = fmax(0.0, f[E][c] - dt * (f[P][c] + f[Q][c]) / rho * div);
        f[RHO][c] = fmax(1e-6, rho / (1.0 + dt * div));
        double squeeze = div < 0 ? -div * dx : 0.0; /* viscosity only under compression */
        f[Q][c] = f[RHO][c] * squeeze * (q_lin * f[SS][c] + q_quad * squeeze);
    }
}

static void initialise(long cells)
{
#pragma omp parallel for schedule(static) /* first touch by the threads that compute */
    for (long c = 0; c < cells; c++) {
        for (int a = 0; a < NFIELDS; a++)
            f[a][c] = 0.0;
        f[RHO][c] = 1.0;
        f[MASS][c] = dx * dx * dx;
        f[E][c] = 1e-3;
        f[X][c] = (double)(c / (n * n));
        f[Y][c] = (double)(c / n % n);
        f[Z][c] = (double)(c % n);
    }
    for (long i = 0; i < 2 && i < n; i++) /* a Sedov-like blast in one corner */
        for (long j = 0; j < 2 && j < n; j++)
            for (long k = 0; k < 2 && k < n; k++)
                f[E][AT(i, j, k)] = 1e3;
}

/* The NUMA nodes an array's pages are on, e.g. "node 1 (100%)". */
static void where(const void *p, size_t bytes, char *out, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (bytes + (size_t)page - 1) / (size_t)page;
    void **addr = malloc(pages * sizeof *addr);
    int *status = malloc(pages * sizeof *status), count[64] = {0}, other = 0;
    for (size_t i = 0; i < pages; i++)
        addr[i] = (char *)((uintptr_t)p & ~(uintptr_t)(page - 1)) + i * (size_t)page;
    out[0] = '\0';
    if (move_pages(0, (unsigned long)pages, addr, NULL, status, 0) != 0) {
        snprintf(out, len, "unknown (move_pages failed)");
    } else {
        for (size_t i = 0; i < pages; i++) {
            if (status[i] >= 0 && status[i] < 64)
                count[status[i]]++;
            else
                other++; /* -ENOENT: never touched */
        }
        for (int node = 0; node < 64; node++)
            if (count[node]) {
                size_t used = strlen(out);
                snprintf(out + used, len - used, "%snode %d (%.0f%%)", used ? " " : "", node,
                         100.0 * count[node] / (double)pages);
            }
        if (other) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "%s%d pages not placed", used ? " " : "", other);
        }
    }
    free(addr);
    free(status);
}

int main(int argc, char **argv)
{
    long steps = 20;
    n = 80;
    for (int opt; (opt = getopt(argc, argv, "n:i:")) != -1;) {
        if (opt == 'n')
            n = atol(optarg);
        else if (opt == 'i')
            steps = atol(optarg);
        else {
            fprintf(stderr, "usage: %s [-n CELLS_PER_SIDE] [-i STEPS]\n", argv[0]);
            return 2;
        }
    }
    if (n < 4 || steps < 1) {
        fprintf(stderr, "hydro: need -n >= 4 and -i >= 1\n");
        return 2;
    }
    long cells = n * n * n;
    size_t bytes = (size_t)cells * sizeof(double);

    /* Portable to any OpenMP 5 runtime: where high-bandwidth memory is missing the fallback
     * gives DRAM; a runtime that refuses the allocator returns omp_null_allocator, and
     * omp_alloc then uses the default allocator. */
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 64}, {omp_atk_fallback, omp_atv_default_mem_fb}};
    omp_allocator_handle_t spaces[2] = {omp_init_allocator(omp_high_bw_mem_space, 2, traits),
                                        omp_default_mem_alloc};
    for (int a = 0; a < NFIELDS; a++)
        if (!(f[a] = omp_alloc(bytes, spaces[fields[a].space]))) {
            fprintf(stderr, "hydro: no memory for %s (%zu bytes)\n", fields[a].name, bytes);
            return 1;
        }

    initialise(cells);
    double t0 = omp_get_wtime(), t = 0;
    for (long s = 0; s < steps; s++) {
        eos(cells);
        double dt = time_step(cells);
        forces();
        move(cells, dt);
        compress(cells, dt);
        t += dt;
    }
    double elapsed = omp_get_wtime() - t0, energy = 0;
    for (long c = 0; c < cells; c++) /* in order: the same sum on every machine */
        energy += f[E][c] * f[MASS][c];

    Dl_info from;
    printf("hydro: %ld^3 cells, %ld steps, %d threads, omp_alloc from %s\n", n, steps, omp_get_max_threads(),
           dladdr((void *)omp_alloc, &from) && from.dli_fname ? from.dli_fname : "?");
    for (int a = 0; a < NFIELDS; a++) {
        char nodes[256];
        where(f[a], bytes, nodes, sizeof nodes);
        printf("array %-5s %-8s %8.1f MiB  %s\n", fields[a].name, space_names[fields[a].space],
               (double)bytes / (1 << 20), nodes);
    }
    printf("FOM %.1f zones/s  time %.3f s  simulated time %.6e  energy %.9e\n", (double)cells * (double)steps / elapsed,
           elapsed, t, energy);
    for (int a = 0; a < NFIELDS; a++)
        omp_free(f[a], spaces[fields[a].space]);
    omp_destroy_allocator(spaces[HIGH_BW]);
    return 0;
}
