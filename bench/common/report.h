/*
 * What a benchmark tells while it runs and what it leaves behind
 * (report.c): progress lines on stderr and the rows of its JSON file.
 */
#ifndef LOCI_BENCH_REPORT_H
#define LOCI_BENCH_REPORT_H

#include <stdio.h>

/** "[  12.3 s] part: ..." on stderr, the time counted from the first line. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** Append one object (the text between the braces, printf-style) to the JSON
 *  array the benchmark writes into json; nothing when json is NULL. A
 *  process writes one such array. */
void bench_json_row(FILE *json, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
