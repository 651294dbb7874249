/*
 * autosize CLI: escaping for HTML and XML text (markup.h).
 */
#include <string.h>
#include "markup.h"
#include "utf8.h"

/* Where escaped pieces go: a FILE, or a buffer that counts past its end. */
typedef struct markup_out {
	FILE *f;
	char *buf;
	size_t len;
	size_t written;   /* bytes in buf */
	size_t used;      /* bytes the whole text needs */
} markup_out;

static void markup_put(markup_out *o, const char *p, size_t n)
{
	if (o->f) {
		fwrite(p, 1, n, o->f);
	} else if (o->written == o->used && o->used + n < o->len) {
		/* whole pieces only: the first that does not fit ends buf */
		memcpy(o->buf + o->written, p, n);
		o->written += n;
	}
	o->used += n;
}

/* The entity for an ASCII byte that needs one, else NULL. */
static const char *markup_entity(unsigned c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	case '\t': case '\n': case '\r': return " ";
	default: return NULL;
	}
}

/* 0 for the control characters dropped (C0, DEL, C1) and the two
 * non-characters XML 1.0 forbids. */
static int markup_shown(unsigned cp)
{
	return !utf8_is_control(cp) && cp != 0xfffe && cp != 0xffff;
}

/* Escape s into o, at most max_chars characters (0: all). */
static void markup_run(markup_out *o, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, n;
	unsigned cp;

	if (!s)
		return;
	while (*p) {
		const char *ent;

		if (max_chars && chars == max_chars) {
			markup_put(o, "...", 3);
			return;
		}
		n = (size_t)utf8_decode((const char *)p, 4, &cp);
		if (n == 0) {
			markup_put(o, "\xef\xbf\xbd", 3);  /* U+FFFD */
			p++;
			chars++;
			continue;
		}
		ent = n == 1 ? markup_entity(cp) : NULL;
		if (ent) {
			markup_put(o, ent, strlen(ent));
			chars++;
		} else if (markup_shown(cp)) {
			markup_put(o, (const char *)p, n);
			chars++;
		}
		p += n;
	}
}

void markup_write(FILE *f, const char *s)
{
	markup_out o = {.f = f};

	markup_run(&o, s, 0);
}

void markup_write_max(FILE *f, const char *s, size_t max_chars)
{
	markup_out o = {.f = f};

	markup_run(&o, s, max_chars);
}

size_t markup_escape(char *buf, size_t len, const char *s)
{
	markup_out o = {.buf = buf, .len = len};

	markup_run(&o, s, 0);
	if (len > 0)
		buf[o.written] = '\0';
	return o.used;
}
