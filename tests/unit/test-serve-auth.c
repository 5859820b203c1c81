// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve's basic authentication (cli/serve/webconfig.c, auth.c): the
 * Authorization header read whole (the scheme in any case, canonical
 * base64, a NUL anywhere refused), and the checks kept, counted in bcrypts:
 * one per right credential however often it comes, one per distinct wrong
 * one, a user not in the file costing one too, a reload dropping them.
 * Table-driven; out-parameters untouched on failure.
 */
#include <crypt.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "serve.h"

static void test_credentials(void **state)
{
	static const struct {
		const char *header, *user, *pass; /* user NULL: refused */
	} t[] = {
		{ "Basic cHJvbTpzZWNyZXQ=", "prom", "secret" },
		{ "basic cHJvbTpzZWNyZXQ=", "prom", "secret" }, /* RFC 7617: any case */
		{ "BASIC   cHJvbTpzZWNyZXQ=  ", "prom", "secret" },
		{ "Basic\tcHJvbTpzZWNyZXQ=", "prom", "secret" },
		{ "Basic cHJvbTpzZWM6cmV0", "prom", "sec:ret" }, /* the first colon splits */
		{ "Basic OnNlY3JldA==", "", "secret" },
		{ "Basic cHJvbTo=", "prom", "" },
		/* "prom:secret\0anything": a C string would have ended the password */
		{ "Basic cHJvbTpzZWNyZXQAYW55dGhpbmc=", NULL, NULL },
		{ "Basic AHByb206c2VjcmV0", NULL, NULL },     /* a NUL first */
		{ "Basic cHJvbQBhOnNlY3JldA==", NULL, NULL }, /* in the user */
		{ "Basic cHJvbXNlY3JldA==", NULL, NULL },     /* no colon */
		{ "Basic cHJvbTpzZWNyZXQ", NULL, NULL },      /* no padding */
		{ "Basic cHJvbTpzZWNyZXR=", NULL, NULL },     /* bits under the padding */
		{ "Basic cHJvbTpz=WNyZXQ=", NULL, NULL },     /* padding inside */
		{ "Basic cHJvbTpzZWNyZXQ=cHJv", NULL, NULL }, /* data after padding */
		{ "Basic cHJvbTpz ZWNyZXQ=", NULL, NULL },    /* a space inside */
		{ "Basic cHJvbTpzZWNyZXQ*", NULL, NULL },     /* not the alphabet */
		{ "Basic", NULL, NULL },		      /* nothing */
		{ "Basic ", NULL, NULL },		      /* empty */
		{ "Basiccm9vdDp4", NULL, NULL },	      /* no space after */
		{ "Bearer cHJvbTpzZWNyZXQ=", NULL, NULL },    /* another scheme */
		{ "Digest username=\"prom\"", NULL, NULL },   /* another scheme */
		{ "", NULL, NULL },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *user = "untouched", *pass = "untouched";
		int r = web_basic_credentials(t[i].header, buf, sizeof(buf), &user, &pass);

		if (!t[i].user) {
			assert_int_equal(r, -EINVAL);
			assert_string_equal(user, "untouched");
			assert_string_equal(pass, "untouched");
			continue;
		}
		assert_int_equal(r, 0);
		assert_string_equal(user, t[i].user);
		assert_string_equal(pass, t[i].pass);
	}
	/* no header; and more than the buffer holds */
	assert_int_equal(web_basic_credentials(NULL, buf, sizeof(buf), &(const char *){ 0 },
					       &(const char *){ 0 }),
			 -EINVAL);
	assert_int_equal(web_basic_credentials("Basic cHJvbTpzZWNyZXQ=", buf, 11,
					       &(const char *){ 0 }, &(const char *){ 0 }),
			 -EINVAL);
}

/* A bcrypt hash of password at cost 4 (the lowest: the test counts checks, not time). */
static char *hash(const char *password)
{
	char salt[64];
	struct crypt_data cd = { 0 };
	const char *setting = crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt));
	const char *out;

	assert_non_null(setting);
	out = crypt_rn(password, setting, &cd, (int)sizeof(cd));
	assert_non_null(out);
	return strdup(out);
}

/* The cache's key: any function of user and password does (serve's is SHA-256). */
static void key(const char *user, const char *pass, unsigned char k[WEB_AUTH_KEY])
{
	for (size_t i = 0; i < WEB_AUTH_KEY / 8; i++) {
		uint64_t h = 1469598103934665603ull + i; /* FNV-1a of "USER\0PASS", 4 seeds */

		for (const char *p = user; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h *= 1099511628211ull;
		for (const char *p = pass; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		memcpy(k + 8 * i, &h, 8);
	}
}

static bool check(const struct webcfg *c, struct web_auth *a, const char *user, const char *pass)
{
	unsigned char k[WEB_AUTH_KEY];

	key(user, pass, k);
	return web_auth_check(c, a, k, user, pass);
}

static void test_checks_are_kept(void **state)
{
	char *names[] = { "prom", "alice" };
	struct webcfg c = { 0 };
	struct web_auth *a = NULL;
	char pass[32];

	c.users = calloc(2, sizeof(*c.users));
	assert_non_null(c.users);
	c.n_users = 2;
	for (size_t i = 0; i < 2; i++) {
		c.users[i].name = strdup(names[i]);
		c.users[i].hash = hash(i ? "wonderland" : "secret");
	}
	assert_int_equal(web_auth_new(&a), 0);

	/* a right password: one bcrypt, then none however often it comes */
	for (int i = 0; i < 100; i++)
		assert_true(check(&c, a, "prom", "secret"));
	assert_int_equal(web_auth_bcrypts(a), 1);
	assert_true(check(&c, a, "alice", "wonderland"));
	assert_int_equal(web_auth_bcrypts(a), 2);
	/* a flood of one wrong password: one bcrypt */
	for (int i = 0; i < 100; i++)
		assert_false(check(&c, a, "prom", "wrong"));
	assert_int_equal(web_auth_bcrypts(a), 3);
	/* another user's password, and a user not in the file: one bcrypt each */
	assert_false(check(&c, a, "prom", "wonderland"));
	assert_false(check(&c, a, "bob", "secret"));
	assert_false(check(&c, a, "bob", "secret"));
	assert_int_equal(web_auth_bcrypts(a), 5);
	/* distinct wrong ones: one each; past WEB_AUTH_BAD of them the right ones stay */
	for (int i = 0; i < WEB_AUTH_BAD + 10; i++) {
		snprintf(pass, sizeof(pass), "guess%d", i);
		assert_false(check(&c, a, "prom", pass));
	}
	assert_int_equal(web_auth_bcrypts(a), 5 + WEB_AUTH_BAD + 10);
	assert_true(check(&c, a, "prom", "secret"));
	assert_int_equal(web_auth_bcrypts(a), 5 + WEB_AUTH_BAD + 10);
	/* the last WEB_AUTH_BAD wrong ones are kept, the first ones went */
	assert_false(check(&c, a, "prom", "guess265"));
	assert_int_equal(web_auth_bcrypts(a), 5 + WEB_AUTH_BAD + 10);
	assert_false(check(&c, a, "prom", "guess0"));
	assert_int_equal(web_auth_bcrypts(a), 5 + WEB_AUTH_BAD + 11);
	/* a reload drops them: checked again */
	web_auth_clear(a);
	assert_true(check(&c, a, "prom", "secret"));
	assert_int_equal(web_auth_bcrypts(a), 5 + WEB_AUTH_BAD + 12);

	web_auth_free(a);
	webcfg_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_checks_are_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
