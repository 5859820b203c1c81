/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * its commands: one run by name, and each command's entry (cli/commands.c, cli/cmd-*.c). */
#ifndef PMUMON_CLI_COMMANDS_H
#define PMUMON_CLI_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

/* Run pmumon's command name with its arguments (argv[0] the command's name): its exit
 * status, -1 for no such command. */
int cli_run_command(const char *name, int argc, char **argv);
/* cli/commands.c: is name one of pmumon's commands; "unknown command" naming them all;
 * pmumon --help into f; the commands' names into f, one a line, in the table's order
 * (pmumon --list-commands, for the build and the packaging scripts). */
bool cli_is_command(const char *name);
void cli_unknown_command(const char *name);
void cli_usage(FILE *f);
void cli_list_commands(FILE *f);

int cmd_list(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
