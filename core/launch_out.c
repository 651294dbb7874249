/*
 * autosize: the bounded string builder of the launcher files
 * (launch_private.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include "launch_private.h"

void launch_init(launch_out *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = len;
	o->used = 0;
	o->ok = buf != NULL && len > 0;
	if (o->ok)
		buf[0] = '\0';
}

void launch_put(launch_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!o->ok)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->ok = 0;
		o->buf[o->used] = '\0';
		return;
	}
	o->used += (size_t)n;
}

int launch_done(launch_out *o)
{
	if (!o->ok) {
		if (o->buf && o->len > 0)
			o->buf[0] = '\0';
		return -1;
	}
	return (int)o->used;
}

int launch_fail(char *buf, size_t len)
{
	if (buf && len > 0)
		buf[0] = '\0';
	return -1;
}
