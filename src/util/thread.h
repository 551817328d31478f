/*
 * Threads loci starts for itself (heat sources, tiering, the topology
 * watcher, the paged caches' fault, read-ahead and write-behind threads):
 * signals go to the application's threads, never to these, so each starts
 * with every signal blocked.
 */
#ifndef LOCI_UTIL_THREAD_H
#define LOCI_UTIL_THREAD_H

#include <pthread.h>

/** pthread_create with every signal blocked in the new thread (the caller's
 *  mask is as it was on return). 0 or pthread_create's error number. */
int thread_start_quiet(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
