/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Options structs that grow without breaking callers (pmumon.h, top): each
 * opens with `size_t size`, the size of the struct the caller was built with.
 */
#ifndef PM_OPTS_H
#define PM_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

/*
 * Copy the caller's options *src into *dst, the library's own struct of
 * dst_size bytes: the bytes within the caller's size, and zeros (every
 * field's default) after them. Bytes of a larger (newer) caller's struct
 * beyond dst_size must be zero: an option this library does not know is
 * refused rather than silently ignored, as openat2(2) does.
 * Return: 0, -EINVAL (size not set: smaller than the size field itself), or
 * -E2BIG; *dst is untouched on failure.
 */
static inline int pm_opts__copy(void *dst, size_t dst_size, const void *src)
{
	size_t size;

	memcpy(&size, src, sizeof(size));
	if (size < sizeof(size))
		return -EINVAL;
	for (size_t i = dst_size; i < size; i++)
		if (((const unsigned char *)src)[i])
			return -E2BIG;
	memset(dst, 0, dst_size);
	memcpy(dst, src, size < dst_size ? size : dst_size);
	memcpy(dst, &dst_size, sizeof(dst_size)); /* now the library's struct */
	return 0;
}

#define PM_OPTS_COPY(dst, src) pm_opts__copy((dst), sizeof(*(dst)), (src))

#endif
