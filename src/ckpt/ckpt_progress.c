/*
 * Progress of long checkpoint operations (drains, verifies), for whoever
 * shows it: `loci ckpt drain` and `loci ckpt verify` draw a bar. The hook is
 * the calling thread's, so that the background drain thread, which nobody
 * watches, never reports, and two threads of a program do not mix their
 * reports.
 */
#include "ckpt/ckpt.h"

static _Thread_local ckpt_progress_fn hook;
static _Thread_local void *hook_arg;

void ckpt_progress_set(ckpt_progress_fn fn, void *arg)
{
    hook = fn;
    hook_arg = arg;
}

void ckpt_progress(const char *ckpt, const char *what, uint64_t done, uint64_t total)
{
    if (hook)
        hook(ckpt, what, done, total, hook_arg);
}

uint64_t ckpt_stored_bytes(const ckpt_manifest_t *m, bool snaps)
{
    uint64_t total = 0;
    for (size_t k = 0; k < m->nvars; k++)
        for (uint64_t i = 0; i < m->vars[k].nchunks && (snaps || !m->vars[k].snap); i++)
            if (m->vars[k].chunks[i].id != CKPT_ZERO)
                total += ckpt_chunk_len(&m->vars[k], i);
    return total;
}
