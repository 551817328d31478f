/*
 * Counting this process's threads (/proc/self/task): a test's check that
 * what it started has stopped. Used by unit tests and by VM programs, so it
 * needs nothing of cmocka.
 */
#ifndef LOCI_TEST_THREADS_H
#define LOCI_TEST_THREADS_H

/** The threads of this process now. */
int count_threads(void);

/** The same once threads that ended have left /proc (a joined thread's
 *  task may linger there a moment): waits up to 2 s for `expect`. */
int threads_now_or(int expect);

#endif
