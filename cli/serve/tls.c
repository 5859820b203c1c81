// SPDX-License-Identifier: GPL-2.0-only
/*
 * What --web.config.file asks of the HTTP front: libmicrohttpd's TLS
 * options (its TLS is GnuTLS) from tls_server_config, the client
 * certificate check client_auth_type asks for, and basic authentication
 * against basic_auth_users.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-values.h"
#include "mhd.h"
#include "serve.h"

/* GnuTLS priorities for [min, max] (10..13; 0: TLS 1.2 and up, the toolkit's default). */
static void priorities(const struct webcfg *c, char *buf, size_t size)
{
	int lo = c->min_version ? c->min_version : 12, hi = c->max_version ? c->max_version : 13;
	size_t off = (size_t)snprintf(buf, size, "NORMAL:-VERS-ALL");

	for (int v = lo; v <= hi && off < size; v++)
		off += (size_t)snprintf(buf + off, size - off, ":+VERS-TLS1.%d", v - 10);
}

/* A PEM file's text for libmicrohttpd (kept in w->pem[i] for the daemon's life). */
static int read_pem(struct web_tls *w, int i, const char *what, const char *path)
{
	size_t len;
	int r = cli_read_file(path, 1u << 20, &w->pem[i], &len);

	if (r < 0)
		cli_error("cannot read the %s '%s' (--web.config.file): %s", what, path,
			  strerror(-r));
	return r;
}

int web_tls_options(const struct webcfg *c, struct web_tls *w, struct MHD_OptionItem *opts,
		    size_t *n)
{
	if (!c->tls)
		return 0;
	if (read_pem(w, 0, "certificate", c->cert_file) < 0 ||
	    read_pem(w, 1, "key", c->key_file) < 0 ||
	    (c->client_ca_file && read_pem(w, 2, "client CA", c->client_ca_file) < 0))
		return -EINVAL;
	priorities(c, w->priorities, sizeof(w->priorities));
	opts[(*n)++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, w->pem[0] };
	opts[(*n)++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, w->pem[1] };
	opts[(*n)++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, w->priorities };
	/* a trust list makes libmicrohttpd ask the client for its certificate */
	if (w->pem[2] && c->client_auth != WEB_NO_CLIENT_CERT)
		opts[(*n)++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, w->pem[2] };
	return 0;
}

void web_tls_free(struct web_tls *w)
{
	for (int i = 0; i < 3; i++)
		free(w->pem[i]);
}

bool web_client_ok(const struct webcfg *c, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t s;
	unsigned n = 0, status = 0;
	bool given;

	if (!c->tls || c->client_auth <= WEB_REQUEST_CLIENT_CERT)
		return true;
	ci = mhd.get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	s = (gnutls_session_t)ci->tls_session;
	given = mhd.gnutls_certificate_get_peers(s, &n) && n > 0;
	switch (c->client_auth) {
	case WEB_REQUIRE_ANY_CLIENT_CERT:
		return given;
	case WEB_VERIFY_CLIENT_CERT_IF_GIVEN:
		return !given || (mhd.gnutls_certificate_verify_peers2(s, &status) == 0 && !status);
	default: /* RequireAndVerifyClientCert */
		return given && mhd.gnutls_certificate_verify_peers2(s, &status) == 0 && !status;
	}
}

bool web_user_ok(const struct webcfg *c, struct web_auth *a, struct MHD_Connection *conn)
{
	const char *header, *user, *pass;
	unsigned char key[WEB_AUTH_KEY];
	char buf[4096];

	if (!c->n_users)
		return true;
	header = mhd.lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (web_basic_credentials(header, buf, sizeof(buf), &user, &pass) < 0)
		return false;
	/* the key: SHA-256 of "USER\0PASSWORD" (neither has a NUL: one way to read it) */
	if (mhd.gnutls_hash_fast(GNUTLS_DIG_SHA256, user, (size_t)(pass - user) + strlen(pass),
				 key) < 0)
		return false;
	return web_auth_check(c, a, key, user, pass);
}
