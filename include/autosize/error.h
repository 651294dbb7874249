/*
 * autosize: error codes and error details shared by every core call.
 */
#ifndef AUTOSIZE_ERROR_H
#define AUTOSIZE_ERROR_H

#include <stddef.h>

typedef enum autosize_err {
	AUTOSIZE_OK = 0,
	AUTOSIZE_EINVAL,    /* bad input: a value the user or admin gave */
	AUTOSIZE_ENOTFOUND, /* unknown name: preset, GPU, partition */
	AUTOSIZE_EIO,       /* file could not be read */
	AUTOSIZE_ETOOBIG,   /* input over a size or depth cap */
	AUTOSIZE_ENOMEM,    /* allocation failed */
	AUTOSIZE_ENOFIT,    /* no feasible plan */
	AUTOSIZE_EINTERNAL  /* a bug: should never happen */
} autosize_err;

#define AUTOSIZE_MSG_LEN 320

/*
 * Details of the last failure: one line, naming the input and the fix.
 * Caller-allocated; functions that fail fill it (when not NULL).
 */
typedef struct autosize_error {
	autosize_err code;
	char msg[AUTOSIZE_MSG_LEN];
} autosize_error;

/* Whose the failure is: the one place that decides it (the CLI's exit
 * status, the SPANK plugin's refusal, slurmctld's reject or on_error). */
typedef enum autosize_err_class {
	AUTOSIZE_CLASS_OK = 0,
	AUTOSIZE_CLASS_USER,     /* bad input: the user fixes it */
	AUTOSIZE_CLASS_NOFIT,    /* valid input, no plan fits */
	AUTOSIZE_CLASS_INTERNAL  /* the plugin failed: site policy decides */
} autosize_err_class;

autosize_err_class autosize_err_classify(autosize_err code);

/* Static English text for an error code; never NULL. */
const char *autosize_strerror(autosize_err code);

/*
 * Fill *e (if not NULL) with code and a printf-style message; returns code
 * so callers can write `return autosize_fail(e, AUTOSIZE_EINVAL, ...)`.
 */
autosize_err autosize_fail(autosize_error *e, autosize_err code,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reset *e to AUTOSIZE_OK with an empty message (NULL is allowed). */
void autosize_error_clear(autosize_error *e);

/* Make text one line, safe for a terminal or a log: control characters
 * (a newline would forge a log line) become '?'. */
void autosize_one_line(char *text);

#endif
