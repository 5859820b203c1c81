// SPDX-License-Identifier: GPL-2.0-only
/* libmicrohttpd and GnuTLS, loaded when serve starts (mhd.h). */
#include "mhd.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h" /* PMUMON_MHD_SONAME, PMUMON_GNUTLS_SONAME: the build's libraries */

struct cli_mhd mhd;

/* One function of lib into *slot; false (said in err) when it has none. */
static bool sym(void *lib, const char *soname, const char *name, void *slot, char *err, size_t size)
{
	void *f = dlsym(lib, name);

	if (!f)
		snprintf(err, size, "%s has no %s: not the library pmumon was built with", soname,
			 name);
	else
		memcpy(slot, &f, sizeof(f)); /* a function pointer, as dlsym returns it */
	return f != NULL;
}

int cli_mhd_load(char *err, size_t size)
{
	static const struct {
		const char *name;
		size_t off;
		bool tls;
	} fns[] = {
#define F(field, name) { name, offsetof(struct cli_mhd, field), false }
		F(start_daemon, "MHD_start_daemon"),
		F(stop_daemon, "MHD_stop_daemon"),
		F(quiesce_daemon, "MHD_quiesce_daemon"),
		F(get_daemon_info, "MHD_get_daemon_info"),
		F(get_connection_info, "MHD_get_connection_info"),
		F(lookup_connection_value, "MHD_lookup_connection_value"),
		F(create_response_from_buffer, "MHD_create_response_from_buffer"),
		F(add_response_header, "MHD_add_response_header"),
		F(queue_response, "MHD_queue_response"),
		F(destroy_response, "MHD_destroy_response"),
		F(basic_auth_get_username_password, "MHD_basic_auth_get_username_password"),
		F(queue_basic_auth_fail_response, "MHD_queue_basic_auth_fail_response"),
		F(free, "MHD_free"),
#undef F
		{ "gnutls_certificate_get_peers",
		  offsetof(struct cli_mhd, gnutls_certificate_get_peers), true },
		{ "gnutls_certificate_verify_peers2",
		  offsetof(struct cli_mhd, gnutls_certificate_verify_peers2), true },
		{ "gnutls_hash_fast", offsetof(struct cli_mhd, gnutls_hash_fast), true },
	};
	void *lib[2];

	if (mhd.start_daemon)
		return 0;
	lib[0] = dlopen(PMUMON_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	lib[1] = lib[0] ? dlopen(PMUMON_GNUTLS_SONAME, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!lib[0] || !lib[1]) {
		snprintf(err, size, "serve needs %s (Debian: apt install %s): %s",
			 lib[0] ? PMUMON_GNUTLS_SONAME : PMUMON_MHD_SONAME,
			 lib[0] ? "libgnutls30" : "libmicrohttpd12", dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		const char *soname = fns[i].tls ? PMUMON_GNUTLS_SONAME : PMUMON_MHD_SONAME;

		if (!sym(lib[fns[i].tls], soname, fns[i].name, (char *)&mhd + fns[i].off, err,
			 size)) {
			mhd = (struct cli_mhd){ 0 };
			return -ENOENT;
		}
	}
	return 0; /* the libraries stay loaded: serve uses them until it exits */
}
