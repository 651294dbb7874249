/*
 * autosize CLI: one self-contained HTML page of charts and tables
 * (html.c).
 *
 * The page has inline CSS only: no script, no external font, image or
 * link, and a Content-Security-Policy that forbids them, so that it
 * reads the same offline, with JavaScript off, and printed (tables and
 * charts are not split across pages). All text is escaped (markup.h).
 *
 *   html_page *p = html_page_create(f, "autosize report");
 *   html_heading(p, "Jobs per week");
 *   html_chart(p, c);                               (chart.h)
 *   const char *head[] = {"partition", "jobs"};
 *   html_table_begin(p, "jobs", "Jobs by partition", "lr", head, 2);
 *   html_table_row(p, cells, 0);                    (1: highlighted)
 *   html_table_end(p);
 *   rc = html_page_finish(p);                       (0, or -1: ferror)
 *   html_page_destroy(p);
 */
#ifndef AUTOSIZE_CLI_HTML_H
#define AUTOSIZE_CLI_HTML_H

#include <stdio.h>
#include "chart.h"

/* Columns of a table at most (more are not shown). */
#define HTML_COLS_MAX 32

typedef struct html_page html_page;

/* Start a page on f (the caller keeps f): doctype, head with the style
 * and title, and the title as the heading. NULL on out of memory (said
 * on stderr). The caller owns it: html_page_destroy. */
html_page *html_page_create(FILE *f, const char *title);
/* End the page (closes an open table); 0, or -1 when f reports a write
 * error (the caller names the file). */
int html_page_finish(html_page *p);
/* Free p (writes nothing); NULL is fine. */
void html_page_destroy(html_page *p);

/* A section heading (h2) and a paragraph. */
void html_heading(html_page *p, const char *text);
void html_paragraph(html_page *p, const char *text);
/* Chart c, inline SVG in a figure. */
void html_chart(html_page *p, const chart *c);
/* A table: id (may be NULL; escaped), caption (may be NULL), align (one
 * letter per column, 'r' right-aligned numbers, else left; may be NULL),
 * and ncols column heads. */
void html_table_begin(html_page *p, const char *id, const char *caption,
		      const char *align, const char *const *head, int ncols);
/* One row of the table's ncols cells (NULL cells are empty); highlight:
 * the row stands out (bold, marked class "hl"). */
void html_table_row(html_page *p, const char *const *cells, int highlight);
void html_table_end(html_page *p);

#endif
