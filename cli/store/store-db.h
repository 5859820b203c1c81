/* SPDX-License-Identifier: GPL-2.0-only */
/* The store's SQLite handle, for the store's own other files (export.c). */
#ifndef PMUMON_CLI_STORE_DB_H
#define PMUMON_CLI_STORE_DB_H

#include <sqlite3.h>

struct store;
sqlite3 *store_db(struct store *st);

#endif
