// SPDX-License-Identifier: GPL-2.0-only
#include "vfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

struct sim_node {
	char *name;
	bool dir;
	struct sim_node **child;
	size_t n_child, cap_child;
	char *text; /* plain file content */
	size_t len;
	const struct sim_file_ops *ops;
	void *data;
	int err;	  /* fault injection: every read and write fails with it */
	bool gone;	  /* removed while it may still be open: -ENODEV */
	char *removed_at; /* the path it was removed from (graveyard entries) */
};

struct sim_vfs {
	struct sim_node *root;
	/* removed nodes, kept so open descriptors never dangle */
	struct sim_node **graveyard;
	size_t n_graveyard, cap_graveyard;
};

static void node_free(struct sim_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_child; i++)
		node_free(n->child[i]);
	free(n->child);
	free(n->text);
	free(n->name);
	free(n->removed_at);
	free(n);
}

static struct sim_node *node_new(const char *name, size_t len, bool dir)
{
	struct sim_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->name = strndup(name, len);
	n->dir = dir;
	if (!n->name) {
		free(n);
		return NULL;
	}
	return n;
}

int sim_vfs__new(struct sim_vfs **ret)
{
	struct sim_vfs *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v->root = node_new("", 0, true);
	if (!v->root) {
		free(v);
		return -ENOMEM;
	}
	*ret = v;
	return 0;
}

void sim_vfs__free(struct sim_vfs *v)
{
	if (!v)
		return;
	node_free(v->root);
	for (size_t i = 0; i < v->n_graveyard; i++)
		node_free(v->graveyard[i]);
	free(v->graveyard);
	free(v);
}

static struct sim_node *child_of(struct sim_node *dir, const char *name, size_t len)
{
	for (size_t i = 0; i < dir->n_child; i++)
		if (strlen(dir->child[i]->name) == len && !memcmp(dir->child[i]->name, name, len))
			return dir->child[i];
	return NULL;
}

/*
 * Walk to path. With create, make missing directories and a final node of
 * the given kind. *ret_parent gets the parent of the last component.
 */
static int walk(struct sim_vfs *v, const char *path, bool create, bool final_dir,
		struct sim_node **ret, struct sim_node **ret_parent)
{
	struct sim_node *cur = v->root, *parent = NULL;
	const char *p = path;

	if (!path || path[0] == '/')
		return -EINVAL;
	while (*p) {
		size_t len = strcspn(p, "/");
		bool last = p[len] == '\0' || (p[len] == '/' && p[len + 1] == '\0');
		struct sim_node *next;

		if (len == 0 || (len == 1 && p[0] == '.')) {
			p += len + (p[len] == '/');
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (!cur->dir)
			return -ENOTDIR;
		next = child_of(cur, p, len);
		if (!next) {
			if (!create)
				return -ENOENT;
			next = node_new(p, len, last ? final_dir : true);
			if (!next || pm_grow((void **)&cur->child, &cur->cap_child,
					     cur->n_child + 1, sizeof(*cur->child)) < 0) {
				node_free(next);
				return -ENOMEM;
			}
			cur->child[cur->n_child++] = next;
		}
		parent = cur;
		cur = next;
		p += len + (p[len] == '/');
	}
	*ret = cur;
	if (ret_parent)
		*ret_parent = parent;
	return 0;
}

int sim_vfs__write_text(struct sim_vfs *v, const char *path, const char *text)
{
	struct sim_node *n;
	char *copy;
	int r = walk(v, path, true, false, &n, NULL);

	if (r < 0)
		return r;
	if (n->dir)
		return -EISDIR;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	free(n->text);
	n->text = copy;
	n->len = strlen(copy);
	n->ops = NULL;
	return 0;
}

int sim_vfs__add_dynamic(struct sim_vfs *v, const char *path, const struct sim_file_ops *ops,
			 void *data)
{
	struct sim_node *n;
	int r = walk(v, path, true, false, &n, NULL);

	if (r < 0)
		return r;
	if (n->dir)
		return -EISDIR;
	free(n->text);
	n->text = NULL;
	n->ops = ops;
	n->data = data;
	return 0;
}

int sim_vfs__mkdir(struct sim_vfs *v, const char *path)
{
	struct sim_node *n;
	int r = walk(v, path, true, true, &n, NULL);

	if (r < 0)
		return r;
	return n->dir ? 0 : -ENOTDIR;
}

static void mark_gone(struct sim_node *n)
{
	n->gone = true;
	for (size_t i = 0; i < n->n_child; i++)
		mark_gone(n->child[i]);
}

int sim_vfs__remove(struct sim_vfs *v, const char *path)
{
	struct sim_node *n, *parent;
	int r = walk(v, path, false, false, &n, &parent);

	if (r < 0)
		return r;
	if (!parent)
		return -EBUSY; /* the root stays */
	if (pm_grow((void **)&v->graveyard, &v->cap_graveyard, v->n_graveyard + 1,
		    sizeof(*v->graveyard)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < parent->n_child; i++) {
		if (parent->child[i] != n)
			continue;
		memmove(&parent->child[i], &parent->child[i + 1],
			(parent->n_child - i - 1) * sizeof(*parent->child));
		parent->n_child--;
		/* a device that goes away fails its open files with ENODEV */
		mark_gone(n);
		n->removed_at = strdup(path); /* NULL: it cannot return, nothing else */
		v->graveyard[v->n_graveyard++] = n;
		return 0;
	}
	return -ENOENT;
}

/* A fresh copy of a removed tree: same contents and drivers, not gone. */
static struct sim_node *node_clone(const struct sim_node *n)
{
	struct sim_node *c = node_new(n->name, strlen(n->name), n->dir);

	if (!c)
		return NULL;
	c->ops = n->ops;
	c->data = n->data;
	c->len = n->len;
	if (n->text && !(c->text = malloc(n->len + 1)))
		goto fail;
	if (n->text)
		memcpy(c->text, n->text, n->len + 1);
	if (n->n_child && !(c->child = calloc(n->n_child, sizeof(*c->child))))
		goto fail;
	c->cap_child = n->n_child;
	for (; c->n_child < n->n_child; c->n_child++)
		if (!(c->child[c->n_child] = node_clone(n->child[c->n_child])))
			goto fail;
	return c;
fail:
	node_free(c);
	return NULL;
}

int sim_vfs__restore(struct sim_vfs *v, const char *path)
{
	struct sim_node *dead = NULL, *copy, *parent = v->root, *n;
	const char *slash = strrchr(path, '/');
	char *dir;
	int r;

	for (size_t i = v->n_graveyard; i-- > 0 && !dead;)
		if (v->graveyard[i]->removed_at && !strcmp(v->graveyard[i]->removed_at, path))
			dead = v->graveyard[i];
	if (!dead)
		return -ENOENT;
	if (walk(v, path, false, false, &n, NULL) == 0)
		return -EEXIST;
	dir = strndup(path, slash ? (size_t)(slash - path) : 0);
	if (!dir)
		return -ENOMEM;
	r = *dir ? walk(v, dir, true, true, &parent, NULL) : 0;
	free(dir);
	if (r < 0)
		return r;
	if (!parent->dir)
		return -ENOTDIR;
	copy = node_clone(dead);
	if (!copy || pm_grow((void **)&parent->child, &parent->cap_child, parent->n_child + 1,
			     sizeof(*parent->child)) < 0) {
		node_free(copy);
		return -ENOMEM;
	}
	parent->child[parent->n_child++] = copy;
	return 0;
}

int sim_vfs__set_error(struct sim_vfs *v, const char *path, int err)
{
	struct sim_node *n;
	int r = walk(v, path, false, false, &n, NULL);

	if (r < 0)
		return r;
	n->err = err;
	return 0;
}

int sim_read_host_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	struct pm_strbuf b = { 0 };
	char buf[4096];
	ssize_t n;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	/* a file that never ends (/dev/zero, a pipe) stops at max, not at the memory's end */
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -EIO;
			break;
		}
		if ((size_t)n > max - len) {
			r = -EFBIG;
			break;
		}
		pm_strbuf__append(&b, buf, (size_t)n);
		len += (size_t)n;
	}
	close(fd);
	if (r == 0 && b.oom)
		r = -ENOMEM;
	if (r < 0) {
		pm_strbuf__done(&b);
		return r;
	}
	*ret = pm_strbuf__steal(&b);
	if (!*ret)
		*ret = strdup(""); /* an empty file */
	if (!*ret)
		return -ENOMEM;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int sim_vfs__load_tree(struct sim_vfs *v, const char *host_dir, const char *path)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(host_dir);
	if (!d)
		return -errno;
	r = sim_vfs__mkdir(v, path);
	while (r == 0 && (de = readdir(d))) {
		char host[4096], inner[1024];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (pm_snprintf(host, sizeof(host), "%s/%s", host_dir, de->d_name) < 0 ||
		    pm_snprintf(inner, sizeof(inner), "%s%s%s", path, path[0] ? "/" : "",
				de->d_name) < 0) {
			r = -ENAMETOOLONG;
			break;
		}
		if (stat(host, &st) < 0) {
			r = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			r = sim_vfs__load_tree(v, host, inner);
		} else {
			char *text = NULL;

			r = sim_read_host_file(host, SIM_HOST_FILE_MAX, &text, NULL);
			if (r == 0)
				r = sim_vfs__write_text(v, inner, text);
			free(text);
		}
	}
	closedir(d);
	return r;
}

struct sim_node *sim_vfs__lookup(struct sim_vfs *v, const char *path)
{
	struct sim_node *n;

	return walk(v, path, false, false, &n, NULL) == 0 ? n : NULL;
}

struct sim_node *sim_node__child(struct sim_node *dir, const char *name)
{
	return dir->dir ? child_of(dir, name, strlen(name)) : NULL;
}

bool sim_node__is_dir(const struct sim_node *n)
{
	return n->dir;
}

const char *sim_node__text(const struct sim_node *n)
{
	return n->dir || n->ops ? NULL : n->text;
}

bool sim_node__can_pread(const struct sim_node *n)
{
	return !(n->ops && n->ops->no_pread);
}

int sim_node__open(struct sim_node *n, int flags)
{
	if (n->gone)
		return -ENODEV;
	return n->ops && n->ops->open ? n->ops->open(n->data, flags) : 0;
}

/* Why a read or write of n fails before its content is looked at, or 0. */
static int access_error(const struct sim_node *n)
{
	if (n->gone)
		return -ENODEV;
	if (n->err)
		return n->err;
	return n->dir ? -EISDIR : 0;
}

ssize_t sim_node__read(struct sim_node *n, void *buf, size_t len, uint64_t off)
{
	int e = access_error(n);

	if (e)
		return e;
	if (n->ops)
		return n->ops->read ? n->ops->read(n->data, buf, len, off) : -EACCES;
	if (off >= n->len)
		return 0;
	if (len > n->len - off)
		len = n->len - (size_t)off;
	memcpy(buf, n->text + off, len);
	return (ssize_t)len;
}

ssize_t sim_node__write(struct sim_node *n, const void *buf, size_t len, uint64_t off)
{
	int e = access_error(n);

	if (e)
		return e;
	if (n->ops)
		return n->ops->write ? n->ops->write(n->data, buf, len, off) : -EACCES;
	return -EACCES; /* plain sysfs attributes are read-only here */
}

int sim_node__list(struct sim_node *n, int (*fn)(const char *name, bool is_dir, void *ud), void *ud)
{
	if (n->gone)
		return -ENODEV;
	if (!n->dir)
		return -ENOTDIR;
	for (size_t i = 0; i < n->n_child; i++)
		if (fn(n->child[i]->name, n->child[i]->dir, ud))
			break;
	return 0;
}
