/*
 * The shipped GPU catalog as a cmocka group fixture: loaded once before a
 * file's tests (catalog_setup), freed after them (catalog_teardown).
 */
#ifndef AUTOSIZE_CATALOG_FIXTURE_H
#define AUTOSIZE_CATALOG_FIXTURE_H

#include "testutil.h"
#include "autosize.h"

static autosize_catalog *catalog;

static inline int catalog_setup(void **state)
{
	autosize_error e;

	(void)state;
	catalog = autosize_catalog_default(&e);
	return catalog ? 0 : -1;
}

static inline int catalog_teardown(void **state)
{
	(void)state;
	autosize_catalog_destroy(catalog);
	catalog = NULL;
	return 0;
}

#endif
