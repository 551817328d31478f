/* Locks around fork(): the pieces every layer's fork handler is made of. */
#include "internal.h"

void loci__fork_mutex(pthread_mutex_t *m, loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_PREPARE)
        pthread_mutex_lock(m);
    else /* the forking thread took it; in the child it is that thread still */
        pthread_mutex_unlock(m);
}

void loci__fork_rwlock(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr, loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_PREPARE)
        pthread_rwlock_wrlock(l);
    else if (phase == LOCI_FORK_PARENT)
        pthread_rwlock_unlock(l);
    else
        pthread_rwlock_init(l, attr);
}
