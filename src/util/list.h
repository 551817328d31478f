/*
 * Intrusive doubly linked lists. An element holds its own links, in fields
 * the caller names (so one element can be on several lists: a cached large
 * block is on its size bin and on an age list); a list is a head pointer,
 * NULL-terminated, plus a tail where the oldest element is wanted. Pushing
 * is at the head, so the tail is the oldest. No allocation, no lock: the
 * caller's. Arguments are evaluated more than once: pass plain lvalues.
 */
#ifndef LOCI_UTIL_LIST_H
#define LOCI_UTIL_LIST_H

#include <stddef.h>

/** Put e first on the list `head`, through its fields next and prev. */
#define DLIST_PUSH(head, e, next, prev)                                                                                \
    do {                                                                                                               \
        (e)->prev = NULL;                                                                                              \
        (e)->next = (head);                                                                                            \
        if (head)                                                                                                      \
            (head)->prev = (e);                                                                                        \
        (head) = (e);                                                                                                  \
    } while (0)

/** Take e off the list `head`; its links are cleared. */
#define DLIST_UNLINK(head, e, next, prev)                                                                              \
    do {                                                                                                               \
        if ((e)->prev)                                                                                                 \
            (e)->prev->next = (e)->next;                                                                               \
        else                                                                                                           \
            (head) = (e)->next;                                                                                        \
        if ((e)->next)                                                                                                 \
            (e)->next->prev = (e)->prev;                                                                               \
        (e)->next = (e)->prev = NULL;                                                                                  \
    } while (0)

/** DLIST_PUSH on a list that keeps its tail (its oldest element) too. */
#define DLIST_PUSH_T(head, tail, e, next, prev)                                                                        \
    do {                                                                                                               \
        DLIST_PUSH(head, e, next, prev);                                                                               \
        if (!(tail))                                                                                                   \
            (tail) = (e);                                                                                              \
    } while (0)

/** DLIST_UNLINK on a list that keeps its tail. */
#define DLIST_UNLINK_T(head, tail, e, next, prev)                                                                      \
    do {                                                                                                               \
        if ((tail) == (e))                                                                                             \
            (tail) = (e)->prev;                                                                                        \
        DLIST_UNLINK(head, e, next, prev);                                                                             \
    } while (0)

#endif
