// SPDX-License-Identifier: GPL-2.0-only
/*
 * The basic-auth credentials serve checked, kept (serve.h, web_auth): a
 * bcrypt per scrape, at cost 12, took seconds on a busy host and kept a
 * 1 s Prometheus job down. Kept by a hash of user and password, as the
 * exporter-toolkit keeps them (github.com/prometheus/exporter-toolkit,
 * web/handler.go: a cache of each check, and one bcrypt at a time).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

struct web_auth {
	pthread_mutex_t lock;	/* the rest */
	pthread_mutex_t bcrypt; /* held while one runs */
	unsigned char ok[WEB_AUTH_OK][WEB_AUTH_KEY], bad[WEB_AUTH_BAD][WEB_AUTH_KEY];
	size_t n_ok, n_bad; /* how many were kept: the next goes to n % size */
	uint64_t bcrypts;
};

int web_auth_new(struct web_auth **ret)
{
	struct web_auth *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->bcrypt, NULL);
	*ret = a;
	return 0;
}

void web_auth_clear(struct web_auth *a)
{
	pthread_mutex_lock(&a->lock);
	memset(a->ok, 0, sizeof(a->ok));
	memset(a->bad, 0, sizeof(a->bad));
	a->n_ok = a->n_bad = 0;
	pthread_mutex_unlock(&a->lock);
}

void web_auth_free(struct web_auth *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->bcrypt);
	free(a);
}

uint64_t web_auth_bcrypts(struct web_auth *a)
{
	uint64_t n;

	pthread_mutex_lock(&a->lock);
	n = a->bcrypts;
	pthread_mutex_unlock(&a->lock);
	return n;
}

/* 1 when key is kept as good, 0 as bad, -1 when it is not kept. Under a->lock. */
static int kept(const struct web_auth *a, const unsigned char key[WEB_AUTH_KEY])
{
	for (size_t i = 0; i < WEB_AUTH_OK && i < a->n_ok; i++)
		if (!memcmp(a->ok[i], key, WEB_AUTH_KEY))
			return 1;
	for (size_t i = 0; i < WEB_AUTH_BAD && i < a->n_bad; i++)
		if (!memcmp(a->bad[i], key, WEB_AUTH_KEY))
			return 0;
	return -1;
}

bool web_auth_check(const struct webcfg *c, struct web_auth *a,
		    const unsigned char key[WEB_AUTH_KEY], const char *user, const char *pass)
{
	int k;
	bool ok;

	pthread_mutex_lock(&a->lock);
	k = kept(a, key);
	pthread_mutex_unlock(&a->lock);
	if (k >= 0)
		return k;
	/* one bcrypt at a time (as the exporter-toolkit): a flood of new credentials takes
	 * one core at most; and the same one asked twice meanwhile is checked once */
	pthread_mutex_lock(&a->bcrypt);
	pthread_mutex_lock(&a->lock);
	k = kept(a, key);
	pthread_mutex_unlock(&a->lock);
	if (k >= 0) {
		pthread_mutex_unlock(&a->bcrypt);
		return k;
	}
	ok = webcfg_check_user(c, user, pass);
	pthread_mutex_lock(&a->lock);
	a->bcrypts++;
	if (ok)
		memcpy(a->ok[a->n_ok++ % WEB_AUTH_OK], key, WEB_AUTH_KEY);
	else
		memcpy(a->bad[a->n_bad++ % WEB_AUTH_BAD], key, WEB_AUTH_KEY);
	pthread_mutex_unlock(&a->lock);
	pthread_mutex_unlock(&a->bcrypt);
	return ok;
}
