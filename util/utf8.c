/*
 * autosize: UTF-8 checks (utf8.h).
 */
#include <string.h>
#include "utf8.h"

int utf8_seq_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n, i;
	unsigned cp;

	if (u[0] < 0x80)
		return u[0] != 0;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int utf8_seq_control(const char *s, int n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n == 1)
		return u[0] < 0x20 || u[0] == 0x7f;
	/* U+0080..U+009F: 0xc2 0x80..0x9f */
	return n == 2 && u[0] == 0xc2 && u[1] <= 0x9f;
}

void utf8_safe_text(const char *s, char *out, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	while (*s) {
		int n = utf8_seq_len(s);

		if (n && utf8_seq_control(s, n))
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
