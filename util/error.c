/* autosize: error codes and messages. */
#include <stdarg.h>
#include <stdio.h>
#include "autosize/error.h"

const char *autosize_strerror(autosize_err code)
{
	switch (code) {
	case AUTOSIZE_OK: return "success";
	case AUTOSIZE_EINVAL: return "invalid input";
	case AUTOSIZE_ENOTFOUND: return "not found";
	case AUTOSIZE_EIO: return "cannot read file";
	case AUTOSIZE_ETOOBIG: return "input too large";
	case AUTOSIZE_ENOMEM: return "out of memory";
	case AUTOSIZE_ENOFIT: return "no feasible plan";
	case AUTOSIZE_EINTERNAL: return "internal error";
	}
	return "unknown error";
}

autosize_err_class autosize_err_classify(autosize_err code)
{
	switch (code) {
	case AUTOSIZE_OK:
		return AUTOSIZE_CLASS_OK;
	case AUTOSIZE_EINVAL:
	case AUTOSIZE_ENOTFOUND:
	case AUTOSIZE_EIO:      /* a file the user named */
	case AUTOSIZE_ETOOBIG:  /* an input over a cap */
		return AUTOSIZE_CLASS_USER;
	case AUTOSIZE_ENOFIT:
		return AUTOSIZE_CLASS_NOFIT;
	case AUTOSIZE_ENOMEM:
	case AUTOSIZE_EINTERNAL:
		break;
	}
	return AUTOSIZE_CLASS_INTERNAL;
}

autosize_err autosize_fail(autosize_error *e, autosize_err code,
			   const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	/* messages quote input (option names, keys, paths) that may hold
	 * control characters */
	autosize_one_line(e->msg);
	return code;
}

void autosize_one_line(char *text)
{
	char *p;

	for (p = text; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

void autosize_error_clear(autosize_error *e)
{
	if (!e)
		return;
	e->code = AUTOSIZE_OK;
	e->msg[0] = '\0';
}
