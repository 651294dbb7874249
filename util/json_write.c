/*
 * autosize: JSON strings out (json_write.h).
 */
#include <stdio.h>
#include <string.h>
#include "json_write.h"
#include "utf8.h"

/* U+FFFD in UTF-8 */
#define JSON_WRITE_REPLACEMENT "\xef\xbf\xbd"

/* The JSON text of the character at s into piece (NUL-terminated, at
 * most 6 bytes and the NUL); returns the bytes of s it stands for. */
static size_t json_write_piece(const char *s, unsigned flags, char *piece)
{
	unsigned char c = (unsigned char)*s;
	int n;

	if (c == '"' || c == '\\') {
		piece[0] = '\\';
		piece[1] = (char)c;
		piece[2] = '\0';
		return 1;
	}
	if (c < 0x20 || ((flags & JSON_WRITE_HTML) &&
			 (c == '<' || c == '>' || c == '&'))) {
		snprintf(piece, 7, "\\u%04x", c);
		return 1;
	}
	n = utf8_seq_len(s);
	if (!n) {
		memcpy(piece, JSON_WRITE_REPLACEMENT,
		       sizeof(JSON_WRITE_REPLACEMENT));
		return 1;
	}
	memcpy(piece, s, (size_t)n);
	piece[n] = '\0';
	return (size_t)n;
}

static void json_write_put(char *buf, size_t len, size_t *used,
			   const char *text)
{
	size_t n = strlen(text);

	if (*used < len) {
		size_t room = len - *used - 1;
		size_t k = n < room ? n : room;

		memcpy(buf + *used, text, k);
		buf[*used + k] = '\0';
	}
	*used += n;
}

void json_write_str(char *buf, size_t len, size_t *used, const char *s,
		    unsigned flags)
{
	char piece[8];

	json_write_put(buf, len, used, "\"");
	while (*s) {
		s += json_write_piece(s, flags, piece);
		json_write_put(buf, len, used, piece);
	}
	json_write_put(buf, len, used, "\"");
}

void json_write_str_file(FILE *f, const char *s, unsigned flags)
{
	char piece[8];

	fputc('"', f);
	while (*s) {
		s += json_write_piece(s, flags, piece);
		fputs(piece, f);
	}
	fputc('"', f);
}
