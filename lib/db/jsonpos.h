/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where a value of a JSON text is, for messages that name the line and
 * column of a file (jansson says where a parse fails, not where a parsed
 * value came from). Pure functions over (text, length); a text that is not
 * JSON gives -ENOENT or a position in it, never a read past its end.
 */
#ifndef PM_DB_JSONPOS_H
#define PM_DB_JSONPOS_H

#include <stddef.h>

/*
 * The offset of element index of the top-level array, or with key, of that
 * element's member key (its value: the '"' of a string; the last one where
 * the key repeats, as jansson and Python keep the last). Without an array at
 * the top, index 0 is the top-level value. Return: 0 or -ENOENT.
 */
int pm_json_locate(const char *text, size_t len, size_t index, const char *key, size_t *ret_off);

/* The offset of the first character of the top-level value (after white space). */
size_t pm_json_top(const char *text, size_t len);

/* Line and column (from 1; columns count characters, as jansson's) of an offset. */
void pm_json_line_col(const char *text, size_t len, size_t off, int *ret_line, int *ret_col);

/* The offset in the text of byte pos of the decoded string whose '"' is at off
 * (escapes counted as what they decode to). */
size_t pm_json_string_pos(const char *text, size_t len, size_t off, size_t pos);

#endif
