/*
 * autosize CLI: text made safe for HTML and XML (SVG) pages.
 *
 * Every string a page shows (titles, series names, labels, tooltips,
 * table cells, attribute values) goes through these: & < > " ' become
 * entities, tab/CR/LF become spaces, other control characters (C0, DEL,
 * C1) are dropped and bytes that are not UTF-8 become U+FFFD, so the
 * result is inert text in element content and in quoted attribute
 * values, and well-formed XML (a standalone .svg is parsed as XML).
 */
#ifndef AUTOSIZE_CLI_MARKUP_H
#define AUTOSIZE_CLI_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/* Write s escaped to f; NULL writes nothing. */
void markup_write(FILE *f, const char *s);
/* The same, at most max_chars characters of s (then "..."); 0: all. */
void markup_write_max(FILE *f, const char *s, size_t max_chars);
/* s escaped into buf (len bytes, always NUL-terminated when len > 0,
 * cut at a character boundary); returns the length the whole escaped
 * text needs, as snprintf does. The caller owns buf. */
size_t markup_escape(char *buf, size_t len, const char *s);

#endif
