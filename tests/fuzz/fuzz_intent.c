/*
 * libFuzzer target for the intent parser (DESIGN.md §6 item 5).
 *
 * Invariants checked on every input:
 *  - intent_parse returns LOCI_OK or LOCI_EINVAL, nothing else;
 *  - on failure, loci_last_error() names the intent and the result holds no terms;
 *  - on success, the canonical text is short enough, has no whitespace or upper case, and
 *    parses again to the same canonical text and the same terms.
 */
#include "intent/intent.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A NUL-terminated copy, exactly as long as needed, so ASan sees any overread. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    static _Thread_local intent_t in, again;
    int rc = intent_parse(text, &in);
    if (rc != LOCI_OK) {
        if (rc != LOCI_EINVAL)
            abort();
        const char *msg = loci_last_error();
        if (!msg || strncmp(msg, "intent ", 7) != 0 || in.nterms != 0 || in.canonical[0])
            abort();
        free(text);
        return 0;
    }

    size_t clen = strnlen(in.canonical, sizeof in.canonical);
    if (clen >= sizeof in.canonical || in.nterms < 0 || in.nterms > TERM_KEY_COUNT)
        abort();
    for (size_t i = 0; i < clen; i++) {
        char c = in.canonical[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
            (c >= 'A' && c <= 'Z'))
            abort();
    }
    for (int i = 0; i < in.nterms; i++) {
        const intent_term_t *t = &in.terms[i];
        if (t->key < 0 || t->key >= TERM_KEY_COUNT || t->position < 1 ||
            intent_find(&in, t->key) != t || t->index < -1)
            abort();
    }
    if (intent_parse(in.canonical, &again) != LOCI_OK)
        abort();
    if (strcmp(in.canonical, again.canonical) != 0 || in.nterms != again.nterms)
        abort();
    for (int i = 0; i < in.nterms; i++) {
        const intent_term_t *a = &in.terms[i], *b = &again.terms[i];
        if (a->key != b->key || a->constraint != b->constraint || a->position != b->position ||
            memcmp(&a->v, &b->v, sizeof a->v) != 0 || a->index != b->index ||
            a->size != b->size || strcmp(a->name, b->name) != 0)
            abort();
    }
    free(text);
    return 0;
}
