/*
 * autosize CLI: self-contained HTML pages (html.h).
 */
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "markup.h"

struct html_page {
	FILE *f;
	int in_table;
	int ncols;
	char align[HTML_COLS_MAX];
};

/* Inline style only; print: no grey fills, nothing split. */
static const char html_style[] =
	"body{font-family:sans-serif;color:#111;background:#fff;"
	"max-width:64em;margin:1.5em auto;padding:0 1em;line-height:1.4}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}\n"
	"figure{margin:1em 0}svg.chart{max-width:100%;height:auto;"
	"border:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:1em 0;font-size:.9em}\n"
	"caption{text-align:left;font-weight:bold;padding:.3em 0}\n"
	"th,td{border:1px solid #bbb;padding:.2em .6em;text-align:left}\n"
	"th{background:#eee}td.num{text-align:right;"
	"font-variant-numeric:tabular-nums}\n"
	"tr.hl td{font-weight:bold;background:#fff3c4}\n"
	"@media print{body{max-width:none;margin:0}"
	"figure,table{break-inside:avoid}th,tr.hl td{background:none}"
	"svg.chart{border:none}}\n";

html_page *html_page_create(FILE *f, const char *title)
{
	html_page *p = calloc(1, sizeof(*p));

	if (!p) {
		fprintf(stderr, "autosize: html: out of memory\n");
		return NULL;
	}
	p->f = f;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n<title>", f);
	markup_write(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
		html_style);
	markup_write(f, title);
	fputs("</h1>\n", f);
	return p;
}

int html_page_finish(html_page *p)
{
	if (!p)
		return -1;
	if (p->in_table)
		html_table_end(p);
	fputs("</body>\n</html>\n", p->f);
	return ferror(p->f) ? -1 : 0;
}

void html_page_destroy(html_page *p)
{
	free(p);
}

/* <tag>text</tag> and a newline. */
static void html_element(html_page *p, const char *tag, const char *text)
{
	fprintf(p->f, "<%s>", tag);
	markup_write(p->f, text);
	fprintf(p->f, "</%s>\n", tag);
}

void html_heading(html_page *p, const char *text)
{
	html_element(p, "h2", text);
}

void html_paragraph(html_page *p, const char *text)
{
	html_element(p, "p", text);
}

void html_chart(html_page *p, const chart *c)
{
	fputs("<figure>\n", p->f);
	chart_write_svg(c, p->f);
	fputs("</figure>\n", p->f);
}

/* One cell: <th> or <td>, right-aligned for an 'r' column. */
static void html_cell(html_page *p, const char *tag, int col,
		      const char *text)
{
	fprintf(p->f, "<%s%s>", tag,
		p->align[col] == 'r' && tag[1] == 'd' ? " class=\"num\"" : "");
	markup_write(p->f, text);
	fprintf(p->f, "</%s>", tag);
}

void html_table_begin(html_page *p, const char *id, const char *caption,
		      const char *align, const char *const *head, int ncols)
{
	int i;

	if (p->in_table)
		html_table_end(p);
	p->in_table = 1;
	p->ncols = ncols < 0 ? 0 : ncols > HTML_COLS_MAX ? HTML_COLS_MAX
							 : ncols;
	memset(p->align, 0, sizeof(p->align));
	for (i = 0; align && align[i] && i < p->ncols; i++)
		p->align[i] = align[i];
	fputs("<table", p->f);
	if (id && *id) {
		fputs(" id=\"", p->f);
		markup_write(p->f, id);
		fputc('"', p->f);
	}
	fputs(">\n", p->f);
	if (caption && *caption)
		html_element(p, "caption", caption);
	fputs("<thead><tr>", p->f);
	for (i = 0; i < p->ncols; i++)
		html_cell(p, "th", i, head ? head[i] : NULL);
	fputs("</tr></thead>\n<tbody>\n", p->f);
}

void html_table_row(html_page *p, const char *const *cells, int highlight)
{
	int i;

	if (!p->in_table)
		return;
	fputs(highlight ? "<tr class=\"hl\">" : "<tr>", p->f);
	for (i = 0; i < p->ncols; i++)
		html_cell(p, "td", i, cells[i]);
	fputs("</tr>\n", p->f);
}

void html_table_end(html_page *p)
{
	if (!p->in_table)
		return;
	fputs("</tbody>\n</table>\n", p->f);
	p->in_table = 0;
}
