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

static int tls_key(struct parse *p, const char *key, const yaml_node_t *v, struct webcfg *c)
{
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
		     int (*fn)(struct parse *, const char *, const yaml_node_t *, struct webcfg *),
		     struct webcfg *c)
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

static int user_key(struct parse *p, const char *user, const yaml_node_t *v, struct webcfg *c)
{
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

static int top_key(struct parse *p, const char *key, const yaml_node_t *v, struct webcfg *c)
{
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

int webcfg_parse(const char *path, const char *text, size_t len, struct webcfg *ret, char *err,
		 size_t errsz)
{
	struct webcfg c = { .client_auth = WEB_NO_CLIENT_CERT };
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
	if (root) /* an empty file: no TLS, no users */
		r = each_pair(&p, root, "the file", top_key, &c);
	if (r == 0)
		r = check(&p, &c);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
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
