/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulator's file tree: directories, plain text files, and files whose
 * reads and writes call a driver model (hwmon, msr, debugfs) so they can
 * have the real drivers' write semantics and error codes.
 */
#ifndef PM_SIM_VFS_H
#define PM_SIM_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sim_node;

/* A file backed by a model. read/write get the whole request at an offset. */
struct sim_file_ops {
	ssize_t (*read)(void *data, void *buf, size_t len, uint64_t off);
	ssize_t (*write)(void *data, const void *buf, size_t len, uint64_t off);
	/* optional: refuse an open (a device file's permission check) */
	int (*open)(void *data, int flags);
	/* opened nonseekable by the kernel (debugfs attributes): pread and
	 * pwrite fail with ESPIPE; read and write still move the position */
	bool no_pread;
};

struct sim_vfs;

int sim_vfs__new(struct sim_vfs **ret);
void sim_vfs__free(struct sim_vfs *v);

/* Create (or replace) a text file and any missing parent directories. */
int sim_vfs__write_text(struct sim_vfs *v, const char *path, const char *text);
/* Create a file backed by ops; data stays owned by the caller. */
int sim_vfs__add_dynamic(struct sim_vfs *v, const char *path, const struct sim_file_ops *ops,
			 void *data);
int sim_vfs__mkdir(struct sim_vfs *v, const char *path);
/* Remove a file or a whole directory (a device vanishing); files still
 * open fail with ENODEV from then on. */
int sim_vfs__remove(struct sim_vfs *v, const char *path);
/* Make every read and write of path fail with err (0: work again). */
/* The node last removed at path comes back, fresh: files opened before stay gone. */
int sim_vfs__restore(struct sim_vfs *v, const char *path);
int sim_vfs__set_error(struct sim_vfs *v, const char *path, int err);
/* The most a host file the simulator reads may hold: 16 MiB, as --program. */
#define SIM_HOST_FILE_MAX (16u << 20)
/* Read a whole host file (a fixture, a scenario) into *ret (caller frees; a
 * NUL after the last byte), its length into *ret_len if not NULL; -EFBIG past
 * max bytes. */
int sim_read_host_file(const char *path, size_t max, char **ret, size_t *ret_len);
/* Copy a host directory tree (a fixture) to path inside the vfs. */
int sim_vfs__load_tree(struct sim_vfs *v, const char *host_dir, const char *path);

/* Lookup; NULL when absent. */
struct sim_node *sim_vfs__lookup(struct sim_vfs *v, const char *path);
/* A directory's child by name; NULL when absent (or n is no directory). */
struct sim_node *sim_node__child(struct sim_node *dir, const char *name);
bool sim_node__is_dir(const struct sim_node *n);
/* For a plain text file: its content; NULL for directories and dynamic files. */
const char *sim_node__text(const struct sim_node *n);
/* An open of the node: 0, or the error its device gives (EACCES, ...). */
int sim_node__open(struct sim_node *n, int flags);
/* pread/pwrite allowed on it? (false for nonseekable device files) */
bool sim_node__can_pread(const struct sim_node *n);
ssize_t sim_node__read(struct sim_node *n, void *buf, size_t len, uint64_t off);
ssize_t sim_node__write(struct sim_node *n, const void *buf, size_t len, uint64_t off);
/* Call fn for each child of a directory. */
int sim_node__list(struct sim_node *n, int (*fn)(const char *name, bool is_dir, void *ud),
		   void *ud);

#endif
