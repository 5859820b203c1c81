// SPDX-License-Identifier: GPL-2.0-only
/*
 * --web.config.file: the exporter-toolkit's web configuration that every
 * Prometheus exporter reads (github.com/prometheus/exporter-toolkit,
 * docs/web-configuration.md), the parts pmumon serve implements: TLS
 * (tls_server_config: cert_file, key_file, client_auth_type,
 * client_ca_file, min_version, max_version) and basic authentication
 * (basic_auth_users: name -> bcrypt hash). Any other key is refused with
 * its file and line, never silently ignored: a setting an operator wrote
 * and pmumon skipped would be a hole they do not know of.
 */
#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "serve.h"

static const char *const auth_names[] = {
	[WEB_NO_CLIENT_CERT] = "NoClientCert",
	[WEB_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEB_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEB_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEB_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
};

struct parse {
	const char *path;
	yaml_document_t *doc;
	char *err;
	size_t errsz;
};

static int fail(struct parse *p, const yaml_node_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parse *p, const yaml_node_t *at, const char *fmt, ...)
{
	int off = snprintf(p->err, p->errsz, "%s:%zu: ", p->path,
			   at ? at->start_mark.line + 1 : (size_t)1);
	va_list ap;

	va_start(ap, fmt);
	if (off >= 0 && (size_t)off < p->errsz)
		vsnprintf(p->err + off, p->errsz - (size_t)off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A scalar's text, or NULL (said) when the node is not one. */
static const char *scalar(struct parse *p, const yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_SCALAR_NODE) {
		fail(p, n, "%s wants a single value", key);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static int set_string(struct parse *p, const yaml_node_t *n, const char *key, char **ret)
{
	const char *v = scalar(p, n, key);

	if (!v)
		return -EINVAL;
	free(*ret);
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

/* TLS10..TLS13, as Go's crypto/tls names them in the exporter-toolkit. */
static int tls_version(struct parse *p, const yaml_node_t *n, const char *key, int *ret)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	const char *v = scalar(p, n, key);

	for (int i = 0; v && i < 4; i++)
		if (!strcmp(v, names[i])) {
			*ret = 10 + i;
			return 0;
		}
	return v ? fail(p, n, "%s is TLS10, TLS11, TLS12 or TLS13, not '%s'", key, v) : -EINVAL;
}

static int client_auth(struct parse *p, const yaml_node_t *n, enum web_client_auth *ret)
{
	const char *v = scalar(p, n, "client_auth_type");

	for (size_t i = 0; v && i < sizeof(auth_names) / sizeof(auth_names[0]); i++)
		if (!strcmp(v, auth_names[i])) {
			*ret = (enum web_client_auth)i;
			return 0;
		}
	return v ? fail(p, n,
			"client_auth_type is NoClientCert, RequestClientCert, "
			"RequireAnyClientCert, VerifyClientCertIfGiven or "
			"RequireAndVerifyClientCert, not '%s'",
			v) :
		   -EINVAL;
}

static int tls_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;

	if (!strcmp(key, "cert_file"))
		return set_string(p, v, key, &c->cert_file);
	if (!strcmp(key, "key_file"))
		return set_string(p, v, key, &c->key_file);
	if (!strcmp(key, "client_ca_file"))
		return set_string(p, v, key, &c->client_ca_file);
	if (!strcmp(key, "client_auth_type"))
		return client_auth(p, v, &c->client_auth);
	if (!strcmp(key, "min_version"))
		return tls_version(p, v, key, &c->min_version);
	if (!strcmp(key, "max_version"))
		return tls_version(p, v, key, &c->max_version);
	return fail(p, v,
		    "tls_server_config: '%s' is not a setting pmumon serve has (cert_file, "
		    "key_file, client_auth_type, client_ca_file, min_version, max_version)",
		    key);
}

/* Each KEY: VALUE of a mapping node, handed to fn. */
static int each_pair(struct parse *p, const yaml_node_t *map, const char *what,
		     int (*fn)(struct parse *, const char *, const yaml_node_t *, void *), void *c)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return map && map->type == YAML_SCALAR_NODE && !map->data.scalar.length ?
			       0 /* "key:" with nothing: empty */ :
			       fail(p, map, "%s wants KEY: VALUE lines under it", what);
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *key = scalar(p, k, "a key");
		int r;

		if (!key)
			return -EINVAL;
		r = fn(p, key, v, c);
		if (r < 0)
			return r;
	}
	return 0;
}

static int user_key(struct parse *p, const char *user, const yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;
	const char *hash = scalar(p, v, user);
	void *grown;

	if (!hash)
		return -EINVAL;
	if (strncmp(hash, "$2", 2) != 0)
		return fail(p, v, "the password of '%s' is not a bcrypt hash ($2a$, $2b$, $2y$)",
			    user);
	for (size_t i = 0; i < c->n_users; i++)
		if (!strcmp(c->users[i].name, user))
			return fail(p, v, "user '%s' is there twice", user);
	grown = realloc(c->users, (c->n_users + 1) * sizeof(*c->users));
	if (!grown)
		return -ENOMEM;
	c->users = grown;
	c->users[c->n_users].name = strdup(user);
	c->users[c->n_users].hash = strdup(hash);
	c->n_users++;
	return c->users[c->n_users - 1].name && c->users[c->n_users - 1].hash ? 0 : -ENOMEM;
}

static int top_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;

	if (!strcmp(key, "tls_server_config")) {
		c->tls = true;
		return each_pair(p, v, key, tls_key, c);
	}
	if (!strcmp(key, "basic_auth_users"))
		return each_pair(p, v, key, user_key, c);
	return fail(p, v,
		    "'%s' is not a setting pmumon serve has: it reads tls_server_config and "
		    "basic_auth_users of the exporter-toolkit's web configuration",
		    key);
}

/* What the settings say together. */
static int check(struct parse *p, const struct webcfg *c)
{
	if (c->tls && (!c->cert_file || !c->key_file))
		return fail(p, NULL, "tls_server_config needs cert_file and key_file");
	if (c->min_version && c->max_version && c->min_version > c->max_version)
		return fail(p, NULL, "min_version is above max_version");
	if ((c->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN ||
	     c->client_auth == WEB_REQUIRE_AND_VERIFY_CLIENT_CERT) &&
	    !c->client_ca_file)
		return fail(p, NULL, "client_auth_type %s needs client_ca_file to verify with",
			    auth_names[c->client_auth]);
	if (!c->tls && c->client_auth != WEB_NO_CLIENT_CERT)
		return fail(p, NULL, "client_auth_type needs tls_server_config's certificate");
	return 0;
}

/* The file's top-level KEY: VALUE pairs handed to fn, then check (may be NULL) of the
 * whole: 0, -EINVAL (said in p's err), -ENOMEM. An empty file has no pairs. */
static int walk_file(const char *path, const char *text, size_t len,
		     int (*fn)(struct parse *, const char *, const yaml_node_t *, void *),
		     int (*check_fn)(struct parse *, void *), void *arg, char *err, size_t errsz)
{
	struct parse p = { .path = path, .err = err, .errsz = errsz };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int r = 0;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errsz, "%s:%zu: %s", path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	p.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root)
		r = each_pair(&p, root, "the file", fn, arg);
	if (r == 0 && check_fn)
		r = check_fn(&p, arg);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

static int check_web(struct parse *p, void *arg)
{
	return check(p, arg);
}

int webcfg_parse(const char *path, const char *text, size_t len, struct webcfg *ret, char *err,
		 size_t errsz)
{
	struct webcfg c = { .client_auth = WEB_NO_CLIENT_CERT };
	int r;

	if (errsz)
		err[0] = '\0';
	r = walk_file(path, text, len, top_key, check_web, &c, err, errsz);
	if (r < 0) {
		webcfg_free(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void webcfg_free(struct webcfg *c)
{
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	for (size_t i = 0; i < c->n_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	*c = (struct webcfg){ 0 };
}

bool webcfg_same(const struct webcfg *a, const struct webcfg *b)
{
	if (a->tls || b->tls || a->n_users != b->n_users)
		return false;
	for (size_t i = 0; i < a->n_users; i++)
		if (strcmp(a->users[i].name, b->users[i].name) ||
		    strcmp(a->users[i].hash, b->users[i].hash))
			return false;
	return true;
}

/* A password against a bcrypt hash (libxcrypt's crypt_rn; not crypt_r, which sanitizers
 * intercept wrongly), compared over the whole length whatever differs first. */
static bool bcrypt_ok(const char *hash, const char *pass)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd)); /* large: not on a server thread's stack */
	unsigned char diff = 0;
	const char *out;
	size_t n = strlen(hash);
	bool ok;

	if (!cd)
		return false;
	out = crypt_rn(pass, hash, cd, (int)sizeof(*cd));
	ok = out && strlen(out) == n;
	for (size_t i = 0; ok && i < n; i++)
		diff |= (unsigned char)(out[i] ^ hash[i]);
	free(cd);
	return ok && diff == 0;
}

bool webcfg_check_user(const struct webcfg *c, const char *user, const char *pass)
{
	const char *hash = NULL;

	for (size_t i = 0; user && i < c->n_users; i++)
		if (!strcmp(c->users[i].name, user))
			hash = c->users[i].hash;
	/* no such user: a bcrypt all the same (the first user's hash, whose cost is the
	 * file's), so that the time taken does not tell which users exist */
	if (!hash && c->n_users && pass)
		(void)bcrypt_ok(c->users[0].hash, pass);
	return hash && pass && bcrypt_ok(hash, pass);
}

/* ---- Authorization: Basic (RFC 7617) ------------------------------------------------ */

static int b64_value(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* Base64 (RFC 4648, with its padding) of [s, s+len) into out (size bytes): the length, or
 * -EINVAL for anything else. */
static long b64_decode(const char *s, size_t len, char *out, size_t size)
{
	size_t n = 0;

	if (len % 4)
		return -EINVAL;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		unsigned long bits;

		for (int j = 0; j < 4; j++) {
			v[j] = b64_value((unsigned char)s[i + j]);
			if (s[i + j] == '=' && i + 4 == len && j >= 2 &&
			    (j == 3 || s[i + 3] == '=')) {
				v[j] = 0;
				pad++;
			} else if (v[j] < 0 || pad) {
				return -EINVAL;
			}
		}
		bits = (unsigned long)v[0] << 18 | (unsigned long)v[1] << 12 |
		       (unsigned long)v[2] << 6 | (unsigned long)v[3];
		if ((pad == 1 && (bits & 0xff)) || (pad == 2 && (bits & 0xffff)))
			return -EINVAL; /* bits the padding says are not there: not canonical */
		for (int j = 0; j < 3 - pad; j++) {
			if (n >= size)
				return -EINVAL;
			out[n++] = (char)(bits >> (16 - 8 * j));
		}
	}
	return (long)n;
}

int web_basic_credentials(const char *header, char *buf, size_t size, const char **ret_user,
			  const char **ret_pass)
{
	const char *p = header, *end;
	char *colon;
	long n;

	if (!p || strncasecmp(p, "Basic", 5) != 0 || (p[5] != ' ' && p[5] != '\t'))
		return -EINVAL; /* the scheme is case-insensitive (RFC 9110 11.1) */
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	n = size ? b64_decode(p, (size_t)(end - p), buf, size - 1) : -EINVAL;
	if (n < 0)
		return -EINVAL;
	/* every byte counts: a NUL would end the password early in any C string */
	if (memchr(buf, '\0', (size_t)n))
		return -EINVAL;
	buf[n] = '\0';
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	*ret_user = buf;
	*ret_pass = colon + 1;
	return 0;
}

/*
 * --remote-write.config: Prometheus's remote_write entries (its
 * configuration's remote_write section, docs/configuration/configuration.md
 * of prometheus/prometheus), the parts pmumon serve sends with: url,
 * remote_timeout, basic_auth, authorization, bearer_token(_file),
 * tls_config and queue_config's capacity, max_samples_per_send,
 * min_backoff, max_backoff and retry_on_http_429; and external_labels
 * (Prometheus's are global) per entry. As for the web configuration, any
 * other key is refused with its file and line.
 */

/* A duration as Prometheus writes one (30s, 100ms, 5m, 1h, 1m30s): 0 or -EINVAL (said). */
static int duration(struct parse *p, const yaml_node_t *n, const char *key, double *ret)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = { { "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 } };
	const char *v = scalar(p, n, key), *s = v;
	double total = 0;

	if (!v)
		return -EINVAL;
	while (*s) {
		char *end;
		unsigned long long k = strtoull(s, &end, 10);
		size_t i, len = 0;

		if (end == s || *s == '-' || *s == '+')
			break;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			len = strlen(units[i].unit);
			if (!strncmp(end, units[i].unit, len) &&
			    (end[len] == '\0' || (end[len] >= '0' && end[len] <= '9')))
				break;
		}
		if (i == sizeof(units) / sizeof(units[0]))
			break;
		total += (double)k * units[i].s;
		s = end + len;
	}
	if (*s || s == v || !(total > 0))
		return fail(p, n, "%s wants a duration above 0 (30s, 100ms, 5m), not '%s'", key, v);
	*ret = total;
	return 0;
}

static int boolean(struct parse *p, const yaml_node_t *n, const char *key, bool *ret)
{
	const char *v = scalar(p, n, key);

	if (v && (!strcmp(v, "true") || !strcmp(v, "false"))) {
		*ret = v[0] == 't';
		return 0;
	}
	return v ? fail(p, n, "%s is true or false, not '%s'", key, v) : -EINVAL;
}

static int count(struct parse *p, const yaml_node_t *n, const char *key, unsigned long max,
		 unsigned long *ret)
{
	const char *v = scalar(p, n, key);
	char *end;
	unsigned long k;

	if (!v)
		return -EINVAL;
	k = strtoul(v, &end, 10);
	if (v[0] < '0' || v[0] > '9' || *end || !k || k > max)
		return fail(p, n, "%s wants a whole number from 1 to %lu, not '%s'", key, max, v);
	*ret = k;
	return 0;
}

static int basic_auth_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rw_target *t = arg;

	if (!strcmp(key, "username"))
		return set_string(p, v, key, &t->username);
	if (!strcmp(key, "password"))
		return set_string(p, v, key, &t->password);
	if (!strcmp(key, "password_file"))
		return set_string(p, v, key, &t->password_file);
	return fail(p, v, "basic_auth: '%s' is not a setting (username, password, password_file)",
		    key);
}

static int authorization_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rw_target *t = arg;

	if (!strcmp(key, "type"))
		return set_string(p, v, key, &t->auth_type);
	if (!strcmp(key, "credentials"))
		return set_string(p, v, key, &t->credentials);
	if (!strcmp(key, "credentials_file"))
		return set_string(p, v, key, &t->credentials_file);
	return fail(p, v,
		    "authorization: '%s' is not a setting (type, credentials, credentials_file)",
		    key);
}

static int client_tls_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rw_target *t = arg;

	if (!strcmp(key, "ca_file"))
		return set_string(p, v, key, &t->ca_file);
	if (!strcmp(key, "cert_file"))
		return set_string(p, v, key, &t->cert_file);
	if (!strcmp(key, "key_file"))
		return set_string(p, v, key, &t->key_file);
	if (!strcmp(key, "insecure_skip_verify"))
		return boolean(p, v, key, &t->insecure_skip_verify);
	if (!strcmp(key, "min_version"))
		return tls_version(p, v, key, &t->min_version);
	if (!strcmp(key, "max_version"))
		return tls_version(p, v, key, &t->max_version);
	return fail(p, v,
		    "tls_config: '%s' is not a setting pmumon serve has (ca_file, cert_file, "
		    "key_file, insecure_skip_verify, min_version, max_version)",
		    key);
}

static int queue_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rw_target *t = arg;

	if (!strcmp(key, "capacity"))
		return count(p, v, key, 100000000, &t->capacity);
	if (!strcmp(key, "max_samples_per_send"))
		return count(p, v, key, 1000000, &t->max_per_send);
	if (!strcmp(key, "min_backoff"))
		return duration(p, v, key, &t->min_backoff_s);
	if (!strcmp(key, "max_backoff"))
		return duration(p, v, key, &t->max_backoff_s);
	if (!strcmp(key, "retry_on_http_429"))
		return boolean(p, v, key, &t->retry_429);
	return fail(p, v,
		    "queue_config: '%s' is not a setting pmumon serve has (capacity, "
		    "max_samples_per_send, min_backoff, max_backoff, retry_on_http_429)",
		    key);
}

static bool label_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

static int label_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rw_target *t = arg;
	const char *value = scalar(p, v, key);
	void *grown;

	if (!value)
		return -EINVAL;
	if (!label_name_ok(key) || !strncmp(key, "__", 2))
		return fail(p, v,
			    "external_labels: '%s' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, "
			    "not __ first)",
			    key);
	if (!value[0])
		return fail(p, v,
			    "external_labels: '%s' is empty (remote write sends no empty "
			    "label)",
			    key);
	for (size_t i = 0; i < t->n_labels; i++)
		if (!strcmp(t->labels[i].name, key))
			return fail(p, v, "external_labels: '%s' is there twice", key);
	grown = realloc(t->labels, (t->n_labels + 1) * sizeof(*t->labels));
	if (!grown)
		return -ENOMEM;
	t->labels = grown;
	t->labels[t->n_labels].name = strdup(key);
	t->labels[t->n_labels].value = strdup(value);
	t->n_labels++;
	return t->labels[t->n_labels - 1].name && t->labels[t->n_labels - 1].value ? 0 : -ENOMEM;
}

static void target_defaults(struct rw_target *t)
{
	t->timeout_s = 30;
	t->max_per_send = 2000;
	t->min_backoff_s = 0.03;
	t->max_backoff_s = 5;
	t->retry_429 = true;
}

/* A URL remote write may send to: http:// or https://, a host, no fragment. */
static bool url_ok(const char *u)
{
	const char *host = !strncmp(u, "http://", 7)  ? u + 7 :
			   !strncmp(u, "https://", 8) ? u + 8 :
							NULL;

	return host && *host && *host != '/' && !strchr(u, '#') && !strpbrk(u, " \t\r\n");
}

static int entry_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rw_target *t = arg;

	if (!strcmp(key, "url")) {
		int r = set_string(p, v, key, &t->url);

		if (r == 0 && !url_ok(t->url))
			return fail(p, v,
				    "url wants http://HOST[:PORT]/PATH or https://..., not '%s'",
				    t->url);
		return r;
	}
	if (!strcmp(key, "remote_timeout"))
		return duration(p, v, key, &t->timeout_s);
	if (!strcmp(key, "basic_auth"))
		return each_pair(p, v, key, basic_auth_key, t);
	if (!strcmp(key, "authorization"))
		return each_pair(p, v, key, authorization_key, t);
	if (!strcmp(key, "bearer_token"))
		return set_string(p, v, key, &t->credentials);
	if (!strcmp(key, "bearer_token_file"))
		return set_string(p, v, key, &t->credentials_file);
	if (!strcmp(key, "tls_config"))
		return each_pair(p, v, key, client_tls_key, t);
	if (!strcmp(key, "queue_config"))
		return each_pair(p, v, key, queue_key, t);
	if (!strcmp(key, "external_labels"))
		return each_pair(p, v, key, label_key, t);
	return fail(p, v,
		    "remote_write: '%s' is not a setting pmumon serve has (url, remote_timeout, "
		    "basic_auth, authorization, bearer_token, bearer_token_file, tls_config, "
		    "queue_config, external_labels)",
		    key);
}

/* What an entry's settings say together. */
static int check_entry(struct parse *p, const yaml_node_t *at, const struct rw_target *t)
{
	if (!t->url)
		return fail(p, at, "a remote_write entry needs its url");
	if (t->username && !t->password && !t->password_file)
		return fail(p, at, "basic_auth needs password or password_file");
	if (!t->username && (t->password || t->password_file))
		return fail(p, at, "basic_auth needs a username");
	if (t->password && t->password_file)
		return fail(p, at, "basic_auth: password or password_file, not both");
	if (t->credentials && t->credentials_file)
		return fail(p, at,
			    "credentials (bearer_token) or credentials_file "
			    "(bearer_token_file), not both");
	if (t->username && (t->credentials || t->credentials_file))
		return fail(p, at, "basic_auth or authorization, not both");
	if (t->auth_type && !t->credentials && !t->credentials_file)
		return fail(p, at, "authorization needs credentials or credentials_file");
	if (!t->cert_file != !t->key_file)
		return fail(p, at, "tls_config: cert_file and key_file go together");
	if (t->min_version && t->max_version && t->min_version > t->max_version)
		return fail(p, at, "tls_config: min_version is above max_version");
	if (t->min_backoff_s > t->max_backoff_s)
		return fail(p, at, "queue_config: min_backoff is above max_backoff");
	return 0;
}

static int remote_write_key(struct parse *p, const char *key, const yaml_node_t *v, void *arg)
{
	struct rwcfg *c = arg;

	if (strcmp(key, "remote_write"))
		return fail(p, v,
			    "'%s' is not a setting of this file: it holds remote_write, a list of "
			    "Prometheus's remote_write entries",
			    key);
	if (!v || v->type != YAML_SEQUENCE_NODE)
		return fail(p, v, "remote_write wants a list: - url: ...");
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		struct rw_target *t;
		void *grown = realloc(c->t, (c->n + 1) * sizeof(*c->t));
		int r;

		if (!grown)
			return -ENOMEM;
		c->t = grown;
		t = &c->t[c->n++];
		*t = (struct rw_target){ 0 };
		target_defaults(t);
		r = each_pair(p, e, "a remote_write entry", entry_key, t);
		if (r == 0)
			r = check_entry(p, e, t);
		for (size_t i = 0; r == 0 && i + 1 < c->n; i++)
			if (!strcmp(c->t[i].url, t->url))
				r = fail(p, e, "%s is there twice", t->url);
		if (r < 0)
			return r;
	}
	return 0;
}

int rwcfg_parse(const char *path, const char *text, size_t len, struct rwcfg *ret, char *err,
		size_t errsz)
{
	struct rwcfg c = { 0 };
	int r;

	if (errsz)
		err[0] = '\0';
	r = walk_file(path, text, len, remote_write_key, NULL, &c, err, errsz);
	if (r < 0) {
		rwcfg_free(&c);
		return r;
	}
	*ret = c;
	return 0;
}

int rwcfg_add_url(struct rwcfg *c, const char *url)
{
	void *grown;

	if (!url_ok(url))
		return -EINVAL;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->t[i].url, url))
			return 0; /* the file's entry gives its settings */
	grown = realloc(c->t, (c->n + 1) * sizeof(*c->t));
	if (!grown)
		return -ENOMEM;
	c->t = grown;
	c->t[c->n] = (struct rw_target){ 0 };
	target_defaults(&c->t[c->n]);
	c->t[c->n].url = strdup(url);
	if (!c->t[c->n].url)
		return -ENOMEM;
	c->n++;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool rw_target_same(const struct rw_target *a, const struct rw_target *b)
{
#define SAME(f) same_str(a->f, b->f)
	if (!SAME(url) || !SAME(username) || !SAME(password) || !SAME(password_file) ||
	    !SAME(auth_type) || !SAME(credentials) || !SAME(credentials_file) || !SAME(ca_file) ||
	    !SAME(cert_file) || !SAME(key_file))
		return false;
#undef SAME
	if (a->insecure_skip_verify != b->insecure_skip_verify ||
	    a->min_version != b->min_version || a->max_version != b->max_version ||
	    a->timeout_s != b->timeout_s || a->capacity != b->capacity ||
	    a->max_per_send != b->max_per_send || a->min_backoff_s != b->min_backoff_s ||
	    a->max_backoff_s != b->max_backoff_s || a->retry_429 != b->retry_429 ||
	    a->n_labels != b->n_labels)
		return false;
	for (size_t i = 0; i < a->n_labels; i++)
		if (strcmp(a->labels[i].name, b->labels[i].name) ||
		    strcmp(a->labels[i].value, b->labels[i].value))
			return false;
	return true;
}

void rw_target_free(struct rw_target *t)
{
	char **s[] = { &t->url,	      &t->username,    &t->password,	     &t->password_file,
		       &t->auth_type, &t->credentials, &t->credentials_file, &t->ca_file,
		       &t->cert_file, &t->key_file };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(*s[i]);
	for (size_t i = 0; i < t->n_labels; i++) {
		free(t->labels[i].name);
		free(t->labels[i].value);
	}
	free(t->labels);
	*t = (struct rw_target){ 0 };
}

void rwcfg_free(struct rwcfg *c)
{
	for (size_t i = 0; i < c->n; i++)
		rw_target_free(&c->t[i]);
	free(c->t);
	*c = (struct rwcfg){ 0 };
}
