/*
 * autosize: UTF-8 checks (utf8.h).
 */
#include <string.h>
#include "utf8.h"

int utf8_decode(const char *s, size_t left, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c;
	int n, i;

	if (!left)
		return 0;
	if (u[0] < 0x80)
		n = 1, c = u[0];
	else if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, c = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, c = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, c = u[0] & 0x07;
	else
		return 0;
	if (left < (size_t)n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (cp)
		*cp = c;
	return n;
}

int utf8_seq_len(const char *s)
{
	/* a NUL is no continuation byte: the decoder stops there */
	return *s ? utf8_decode(s, 4, NULL) : 0;
}

int utf8_is_control(unsigned cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

void utf8_safe_text(const char *s, char *out, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	while (*s) {
		unsigned cp;
		int n = utf8_decode(s, 4, &cp);

		if (n && utf8_is_control(cp))
			n = 0;
		if (used + (n ? (size_t)n : 1) >= len)
			break;
		if (n) {
			memcpy(out + used, s, (size_t)n);
			used += (size_t)n;
			s += n;
		} else {
			out[used++] = '?';
			s++;
		}
	}
	out[used] = '\0';
}
