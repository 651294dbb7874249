/*
 * autosize: parsers for the values users write in options and #SBATCH lines.
 *
 * Every parser takes the name of the input (`what`, e.g. "--model-params")
 * so the error message names it, rejects leading/trailing junk, NaN, inf,
 * overflow, and text longer than AUTOSIZE_VALUE_MAX bytes.
 */
#ifndef AUTOSIZE_PARSE_H
#define AUTOSIZE_PARSE_H

#include "autosize/error.h"

#define AUTOSIZE_VALUE_MAX 64

/*
 * A positive count as people write it: "70e9", "70B", "7.5b", "2T",
 * "1.5M", "350k", "2e12". Suffixes K/M/B/G/T (x1e3 .. x1e12, case-
 * insensitive). Must be > 0 and <= 1e18.
 */
autosize_err autosize_parse_count(const char *text, const char *what,
				  double *out, autosize_error *e);

/*
 * A positive integer in [min, max] ("8", "1e3" and "4k" are accepted when
 * they are whole numbers).
 */
autosize_err autosize_parse_int(const char *text, const char *what,
				long min, long max, long *out,
				autosize_error *e);

/*
 * A length in tokens as people write sequence lengths: "4096", "8k" =
 * 8192, "128K" = 131072, "1M" = 1048576 (K and M are powers of two here,
 * as in "8k context"). A whole number in [min, max].
 */
autosize_err autosize_parse_tokens(const char *text, const char *what,
				   long min, long max, long *out,
				   autosize_error *e);

/*
 * A global batch: sequences as a plain number ("1024", "1024seq"), or
 * tokens with a "tok"/"tokens" suffix ("4Mtok" = 4 x 2^20 tokens,
 * "4194304tokens"). A count suffix alone ("4M") is refused as ambiguous.
 * Exactly one of *sequences (whole, >= 1) and *tokens (> 0) is set
 * non-zero.
 */
autosize_err autosize_parse_batch(const char *text, const char *what,
				  long *sequences, double *tokens,
				  autosize_error *e);

/* 1 when a duration is written as a bare number, which Slurm reads as
 * minutes ("30"). */
int autosize_duration_is_bare_minutes(const char *text);

/* A decimal fraction in [min, max] ("0.2", "20%"). */
autosize_err autosize_parse_fraction(const char *text, const char *what,
				     double min, double max, double *out,
				     autosize_error *e);

/*
 * A duration, in seconds, as Slurm writes it ("90" = minutes, "MM:SS",
 * "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS") or as people do ("10d",
 * "36h", "90m", "45s", "2w", "1d12h", "1.5d"). Must be > 0 and at most
 * 100 years.
 */
autosize_err autosize_parse_duration(const char *text, const char *what,
				     double *seconds, autosize_error *e);

/* 1 when s is one of the NULL-terminated list's words (exactly). */
int autosize_word_in(const char *s, const char *const *list);

/* "s" after a count other than one: "%d node%s", n, autosize_plural(n)
 * reads "1 node", "2 nodes". */
const char *autosize_plural(long n);

/*
 * Match text against a NULL-terminated list of words (case-insensitive);
 * on success *index is the position. The error lists the accepted words.
 */
autosize_err autosize_parse_choice(const char *text, const char *what,
				   const char *const *words, int *index,
				   autosize_error *e);

/*
 * Format seconds as Slurm's "D-HH:MM:SS" (or "HH:MM:SS" under a day) into
 * buf; returns buf.
 */
char *autosize_format_duration(double seconds, char *buf, size_t len);

#endif
