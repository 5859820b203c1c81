/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libmicrohttpd and the two GnuTLS calls serve makes, loaded when serve
 * starts (dlopen) rather than linked into pmumon: with GnuTLS's chain they
 * were 2.4 MB of every command's resident memory (README, Performance).
 * The headers give the types; cli_mhd holds the functions (and GnuTLS's
 * SHA-256, which keys the basic-auth cache).
 */
#ifndef PM_CLI_SERVE_MHD_H
#define PM_CLI_SERVE_MHD_H

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <stddef.h>

struct cli_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_quiesce_daemon) *quiesce_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
	__typeof__(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
	__typeof__(MHD_free) *free;
	__typeof__(gnutls_certificate_get_peers) *gnutls_certificate_get_peers;
	__typeof__(gnutls_certificate_verify_peers2) *gnutls_certificate_verify_peers2;
	__typeof__(gnutls_hash_fast) *gnutls_hash_fast;
};

/* The loaded functions: valid after cli_mhd_load() returned 0. */
extern struct cli_mhd mhd;

/* Load them (once; later calls return at once). 0, or -ENOENT with err saying which
 * library or function is missing and the package that has it. */
int cli_mhd_load(char *err, size_t size);

#endif
