/*
 * autosize internal: what the calibrator (calibrate.c) needs of the
 * calibration file (calibration.c).
 */
#ifndef AUTOSIZE_CALIBRATE_H
#define AUTOSIZE_CALIBRATE_H

#include "autosize/calibration.h"

/* An empty calibration (NULL: out of memory). */
autosize_calibration *autosize_calibration_empty(void);
/* Append an entry; -1 when full. */
int autosize_calibration_add_entry(autosize_calibration *c,
				   const autosize_cal_entry *x);

/* autosize_calibration_find with the scale class by name (NULL any). */
const autosize_cal_entry *autosize_calibration_find_scale(
	const autosize_calibration *c, const char *partition,
	const char *gpu, const char *framework, const char *scale);

#endif
