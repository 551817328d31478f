/*
 * Small text files the kernel publishes (sysfs, procfs, debugfs): one line
 * read whole, for discovery, the heat sources and the shared-memory probe;
 * or a short file of several lines (a sysfs list, one entry per line).
 */
#ifndef LOCI_UTIL_TEXT_FILE_H
#define LOCI_UTIL_TEXT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/** The first line of the file at `path`, without its newline, into buf (len
 *  bytes, cut to fit); false, with buf "", when the file cannot be opened
 *  or read. */
bool text_first_line(const char *path, char *buf, size_t len);

/** The whole file at `path` (newlines kept) into buf (len bytes, cut to
 *  fit); false, with buf "", when the file cannot be opened or read. */
bool text_whole(const char *path, char *buf, size_t len);

#endif
