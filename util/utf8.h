/*
 * autosize internal: UTF-8 (RFC 3629), the one check every writer of
 * text another program reads (JSON, the report, HTML) goes through.
 */
#ifndef AUTOSIZE_UTF8_H
#define AUTOSIZE_UTF8_H

#include <stddef.h>

/*
 * The length (1-4) of the well-formed UTF-8 sequence at s, looking at
 * no more than left bytes (and never past a NUL), its code point in *cp
 * (cp may be NULL); 0 when the bytes there are not one: a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, cut
 * short. RFC 3629 section 4. U+0000..U+007F are 1, control characters
 * included. The one UTF-8 decoder of the project (the JSON reader and
 * writer, the report, the HTML pages).
 */
int utf8_decode(const char *s, size_t left, unsigned *cp);

/* The length of the sequence at NUL-terminated s (utf8_decode). */
int utf8_seq_len(const char *s);

/* 1 for a control character: C0 (U+0000..U+001F), DEL, C1
 * (U+0080..U+009F). */
int utf8_is_control(unsigned cp);

/*
 * s as text safe to print and to put in a page: each control character
 * and each byte that starts no well-formed sequence becomes '?'; cut at
 * a character boundary to fit len (with its NUL). The report's and
 * show's rule for what users and sacct wrote (names, states).
 */
void utf8_safe_text(const char *s, char *out, size_t len);

#endif
