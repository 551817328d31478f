/*
 * A process's share of the time it could run (src/os/run_share.c), and the
 * heat a starved process's readings are taken for (heat__as_if_ran,
 * src/heat/heat_base.c): three threads that spin on one CPU ran at most a
 * third of the time they could, one alone ran more; a reading taken over half
 * the time reads as the whole time's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "heat/heat_internal.h"
#include "os/run_share.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static atomic_bool stop;

static void *spin(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        ;
    return NULL;
}

/* The share over 300 ms of `n` threads spinning, the caller asleep. */
static double share_of_spinners(run_share_t *r, int n)
{
    pthread_t t[4];
    atomic_store(&stop, false);
    run_share_next(r);
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&t[i], NULL, spin, NULL), 0);
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    double share = run_share_next(r); /* (before they stop: their totals are in it) */
    atomic_store(&stop, true);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return share;
}

static void threads_on_one_cpu(void **state)
{
    (void)state;
    cpu_set_t was, one;
    assert_int_equal(sched_getaffinity(0, sizeof was, &was), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &was)) {
            CPU_SET(c, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0); /* the threads started next inherit it */
    run_share_t r = {0};
    assert_true(run_share_next(&r) == -1); /* the first reading has nothing to compare with */
    double three = share_of_spinners(&r, 3), alone = share_of_spinners(&r, 1);
    print_message("share: 3 threads on one CPU %.2f, 1 thread %.2f\n", three, alone);
    assert_true(three >= 0 && three <= 0.45); /* a third at best: others on that CPU only lower it */
    assert_true(alone > three);
    run_share_free(&r);
    sched_setaffinity(0, sizeof was, &was);
}

static void a_starved_reading_as_if_it_ran(void **state)
{
    (void)state;
    double rate = 3; /* touches of a page per window */
    double half = 1 - exp(-rate / 2), whole = 1 - exp(-rate);
    assert_true(fabs(heat__as_if_ran(half, 2) - whole) < 1e-9);
    assert_true(heat__as_if_ran(0.3, 1) == 0.3);  /* ran as usual */
    assert_true(heat__as_if_ran(0.3, 0.5) == 0.3); /* ran more than usual: never corrected down */
    assert_true(heat__as_if_ran(0, 3) == 0);
    assert_true(heat__as_if_ran(1, 3) == 1);
    assert_true(fabs(heat__as_if_ran(0.1, 100) - heat__as_if_ran(0.1, HEAT_MOST_CORRECTION)) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_on_one_cpu),
        cmocka_unit_test(a_starved_reading_as_if_it_ran),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
