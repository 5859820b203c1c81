#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A mutation sample over the hot files of lib/ and cli/: each mutant is one
plausible slip (a comparison turned, an off-by-one, a flag dropped, a term
lost), made in the source, built in its own build directory, and run
against the tests that can see it (lib/: the unit, sim and lib suites;
cli/: the unit tests of its part and, where only the command shows it, the
one test method of tests/cli that does); a mutant they fail on is killed,
one they pass survived. The tree is put back after each, also when
interrupted (Ctrl-C, SIGTERM, SIGHUP). The results, with why each survivor
lives, are in docs/mutation.md.

usage: scripts/mutants.py [--build DIR] [--only N,...] [--list] [--check]
"""
import argparse
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')

# (file, the text as it is (exactly once in the file), the mutant, what the slip is[,
# the tests that can see it: TESTS' default for the file's part otherwise])
MUTANTS = [
    # lib/util/counts.c: multiplex scaling, units
    ('lib/util/counts.c', 'if (run >= ena)\n\t\treturn (double)val;',
     'if (run > ena)\n\t\treturn (double)val;', 'scale: run == ena takes the division path'),
    ('lib/util/counts.c', '(double)val * ((double)ena / (double)run)',
     '(double)val * ((double)run / (double)ena)', 'scale: running/enabled inverted'),
    ('lib/util/counts.c', 'if (run == 0)\n\t\treturn NAN;', 'if (run == 0)\n\t\treturn 0;',
     'scale: a counter that never ran reads 0, not NaN'),
    ('lib/util/counts.c', 'if (inv >= 2 && inv < 1e18 && inv == nearbyint(inv))',
     'if (inv >= 2 && inv < 1e18)', 'unit: a scale 1/x divides by a non-integer x too'),
    # lib/source/wrap.c: wrap and lateness
    ('lib/source/wrap.c', 'if (val < last && (!wraps || width >= 64)) {',
     'if (val < last && !wraps) {', 'wrap: a 64-bit counter that goes down is a wrap'),
    ('lib/source/wrap.c', '*ret_delta = (val - last) & mask;', '*ret_delta = val - last;',
     'wrap: the delta not masked to the counter width'),
    ('lib/source/wrap.c', 'if (pm_wrap_poll__late(w, width, dt_ns))\n\t\tflags |= PM_ROW_WRAP_UNCERTAIN;',
     'if (pm_wrap_poll__late(w, width, dt_ns))\n\t\tflags |= 0;', 'wrap: a late read not flagged'),
    ('lib/source/wrap.c', 'w->max_rate * (double)dt_ns * PM_WRAP_LATE_DEN > ldexp(PM_WRAP_LATE_NUM, (int)width)',
     'w->max_rate * (double)dt_ns * PM_WRAP_LATE_NUM > ldexp(PM_WRAP_LATE_DEN, (int)width)',
     'wrap: lateness threshold 4/3 of the range instead of 3/4'),
    # lib/aggr.c: deltas, merging
    ('lib/aggr.c', 'if (isnan(row->running) || ratio < row->running) {',
     'if (isnan(row->running) || ratio > row->running) {', 'aggr: the best running share kept'),
    ('lib/aggr.c', '*ret_run = c->cur.run - (interval ? c->prev.run : 0);',
     '*ret_run = c->cur.run;', 'aggr: an interval\'s running time from the start'),
    ('lib/aggr.c', '*ret_val = ev->snapshot ? c->cur.val : c->cur.val - (interval ? c->prev.val : 0);',
     '*ret_val = c->cur.val - (interval ? c->prev.val : 0);', 'aggr: a snapshot event differenced'),
    ('lib/aggr.c', 'if (run < ena)\n\t\t\trow->flags |= PM_ROW_MULTIPLEXED;',
     'if (run + 1 < ena)\n\t\t\trow->flags |= PM_ROW_MULTIPLEXED;',
     'aggr: a counter 1 ns short of enabled not flagged multiplexed'),
    ('lib/aggr.c', 'row->value = pm_counts__unit(ev->snapshot ? a->sum / a->n_in : a->sum, ev->scale);',
     'row->value = pm_counts__unit(a->sum, ev->scale);', 'aggr: snapshot gauges summed, not averaged'),
    ('lib/aggr.c', 'if (a->n_in == 0 || a->n_uncounted) {', 'if (a->n_in == 0) {',
     'aggr: a row with an uncounted input gets a value'),
    ('lib/aggr.c', 'if (a->covered < a->instances && (!(row->flags & PM_ROW_UNSUPPORTED) || a->n_in))',
     'if (a->covered + 1 < a->instances && (!(row->flags & PM_ROW_UNSUPPORTED) || a->n_in))',
     'aggr: one instance missing is not partial'),
    # lib/metric/expr.c: evaluation
    ('lib/metric/expr.c', 'return b == 0 ? NAN : a / b; /* perf aborts the metric: no value */',
     'return b == 0 ? 0 : a / b;', 'expr: x/0 is 0, not NaN'),
    ('lib/metric/expr.c', 'return isnan(a) || isnan(b) ? NAN : b == 0 ? 0 : a / b;',
     'return b == 0 ? 0 : a / b;', 'expr: d_ratio of a NaN is a number'),
    ('lib/metric/expr.c', 'return isnan(a) || isnan(b) ? NAN : a < b ? a : b;',
     'return isnan(a) || isnan(b) ? NAN : a > b ? a : b;', 'expr: min is max'),
    ('lib/metric/expr.c', 'st[sp - 1] = isnan(c) ? NAN : c != 0 ? a : b;',
     'st[sp - 1] = c != 0 ? a : b;', 'expr: a NaN condition selects'),
    ('lib/metric/expr.c', 'return isnan(a) || isnan(b) ? NAN : a < b;\n',
     'return isnan(a) || isnan(b) ? NAN : a <= b;\n', 'expr: < is <='),
    # lib/metric/metric.c: quality of metric rows
    ('lib/metric/metric.c', 'if (!isnan(running) && (isnan(row->running) || running < row->running)) {',
     'if (!isnan(running) && (isnan(row->running) || running > row->running)) {',
     'metric: the best input running share kept'),
    ('lib/metric/metric.c', 'row->flags |= in->flags & PM_ROW_INHERITED;',
     'row->flags |= in->flags & (PM_ROW_INHERITED & ~PM_ROW_WRAP_UNCERTAIN);',
     'metric: a wrap-uncertain input not inherited'),
    ('lib/metric/metric.c', 'row->flags |= known ? PM_ROW_UNDEFINED : PM_ROW_NOT_COUNTED;',
     'row->flags |= PM_ROW_NOT_COUNTED;', 'metric: 0/0 is "not counted", not "undefined"'),
    ('lib/metric/metric.c', 'case PM_SLOT_DURATION:\n\t\t\t\t\ts->rows->mvals[k] = (double)rep->duration_ns / 1e9;',
     'case PM_SLOT_DURATION:\n\t\t\t\t\ts->rows->mvals[k] = (double)rep->t_ns / 1e9;',
     'metric: duration_time is the run\'s, not the interval\'s'),
    ('lib/metric/metric.c', '(uint64_t)in->covered * row->instances <\n',
     '(uint64_t)in->covered * row->instances >\n', 'metric: the best-covered input kept'),
    # lib/report.c: the report's clock
    ('lib/report.c', 'rep->duration_ns = interval ? s->t_now_ns - s->t_prev_ns : rep->t_ns;',
     'rep->duration_ns = interval ? s->t_now_ns - s->t_enable_ns : rep->t_ns;',
     'report: an interval lasts since enable'),
    ('lib/report.c', 'rep->task_times = !interval && s->opts.target == PM_TARGET_TASK &&',
     'rep->task_times = s->opts.target == PM_TARGET_TASK &&', 'report: intervals carry the command\'s times'),
    # lib/source/rotation.c: user-space rotation
    ('lib/source/rotation.c', 'r->first = (r->first + n) % r->n_ctr;',
     'r->first = (r->first + 1) % r->n_ctr;', 'rotation: advances one counter, not a window'),
    ('lib/source/rotation.c', 'return now > r->t_last ? now - r->t_last : 0;',
     'return now - r->t_last;', 'rotation: a clock going back wraps elapsed time'),
    ('lib/source/rotation.c', 'return r->n_ctr > n && n > 0;', 'return r->n_ctr >= n && n > 0;',
     'rotation: rotates when everything fits'),
    # lib/source/perf/perf.c: reads
    ('lib/source/perf/perf.c', 'return ru->group ? (struct pm_reading){ buf[3 + m], buf[1], buf[2] } :',
     'return ru->group ? (struct pm_reading){ buf[3 + m], buf[2], buf[1] } :',
     'perf: a group read\'s enabled and running swapped'),
    ('lib/source/perf/perf.c', 'if ((size_t)n != want * sizeof(uint64_t) || (ru->group && buf[0] != ru->n)) {',
     'if ((size_t)n != want * sizeof(uint64_t)) {', 'perf: a group read of another size of group taken'),
    # lib/util/cpus.c, util.c: parsers
    ('lib/util/cpus.c', 'if (hi < lo)\n\t\t\tgoto einval;', 'if (hi < lo)\n\t\t\thi = lo;',
     'cpus: a reversed range taken as its start'),
    ('lib/util/cpus.c', 'if (end < len && end + 1 == len)\n\t\t\tgoto einval; /* trailing comma */',
     'if (0)\n\t\t\tgoto einval; /* trailing comma */', 'cpus: a trailing comma taken'),
    ('lib/util/util.c', 'if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||',
     'if (0 && __builtin_mul_overflow(v, (uint64_t)base, &v) ||', 'u64: overflow in the multiply not caught'),
    ('lib/util/util.c', 'if (d >= base)\n\t\t\treturn -EINVAL;', 'if (d > base)\n\t\t\treturn -EINVAL;',
     'u64: the digit equal to the base taken'),
    # cli/serve/plan.c, acc.c, expo.c: the exposition (tests/unit/test-expo.c)
    ('cli/serve/plan.c', 'size_t plain = strcspn(value, "\\\\\\"\\n");',
     'size_t plain = strcspn(value, "\\\\\\"");', 'expo: a newline in a label value written raw'),
    ('cli/serve/plan.c', 'sbuf_puts(b, *value == \'\\\\\' ? "\\\\\\\\" :',
     'sbuf_puts(b, *value == \'\\\\\' ? "\\\\" :', 'expo: a backslash in a label value not doubled'),
    ('cli/serve/acc.c', 'if (sum >= shown_before)\n\t\treturn sum;',
     'if (!isnan(sum))\n\t\treturn sum;', 'acc: a counter follows its estimate down'),
    ('cli/serve/acc.c', 'a->e[e].base = a->e[e].shown;', 'a->e[e].base = (struct expo_count){ 0 };',
     'acc: a rebuilt counting\'s series restart from 0'),
    ('cli/serve/acc.c',
     'e->shown.running_ns = PM_MAX_U64(e->shown.running_ns, e->base.running_ns + t->running_ns);',
     'e->shown.running_ns = e->base.running_ns + t->running_ns;',
     'acc: running seconds follow the least running input down'),
    ('cli/serve/acc.c',
     'return isnan(r->value) &&\n\t       !(r->enabled_ns > 0 && r->running_ns == 0 && !(r->flags & PM_ROW_LOST));',
     'return isnan(r->value);', 'acc: a rotated event\'s wait for its turn counted uncounted'),
    ('cli/serve/acc.c', 'return t->value * pr->factor * t_s;', 'return t->value * pr->factor;',
     'acc: a rate\'s amount without its time'),
    ('cli/serve/expo.c', 'uint64_t f = ns % 1000000000u;',
     'uint64_t f = ns % 100000000u;',
     'expo: seconds lose their tenths'),
    ('cli/serve/expo.c', 'rl->last_failed ? 0 : 1);', 'rl->failed ? 0 : 1);',
     'reload: last_reload_successful 0 for ever after one refusal'),
    ('cli/serve/expo.c', 'rl->last_failed = !ok;', 'rl->last_failed |= !ok;',
     'reload: a good reload after a refused one still failed'),
    # cli/store/store.c: the recording's retention (tests/unit/test-store.c)
    ('cli/store/store.c', 'r = drop_before(st, first + (last - first) / 10 + 1, ret_err);',
     'r = drop_before(st, first + (last - first) / 2 + 1, ret_err);',
     'store: --max-size drops half of what is left per round, not a tenth'),
    ('cli/store/store.c',
     '" WHERE wall_ns < %lld ORDER BY wall_ns, run, t_ns LIMIT 4);"\n'
     '\t\t "DELETE FROM sample WHERE (run, t_ns) IN (SELECT run, t_ns FROM sample"\n'
     '\t\t " WHERE wall_ns < %lld ORDER BY wall_ns, run, t_ns LIMIT 4);",',
     '" WHERE wall_ns <= %lld ORDER BY wall_ns, run, t_ns LIMIT 4);"\n'
     '\t\t "DELETE FROM sample WHERE (run, t_ns) IN (SELECT run, t_ns FROM sample"\n'
     '\t\t " WHERE wall_ns <= %lld ORDER BY wall_ns, run, t_ns LIMIT 4);",',
     'store: --max-age drops the interval exactly that old too'),
    # cli/serve/rw.c: remote write (only the command shows it: tests/cli/test_remote_write.py)
    ('cli/serve/rw.c', 'if (status >= 500 || (status == 429 && t->cfg.retry_429))',
     'if (status >= 400 || (status == 429 && t->cfg.retry_429))', 'rw: every 4xx sent again',
     ['remote-write:Protocol.test_a_4xx_is_never_sent_again']),
    ('cli/serve/rw.c', 'if (status >= 500 || (status == 429 && t->cfg.retry_429))',
     'if (status >= 500 || status == 429)', 'rw: a 429 sent again when told not to',
     ['remote-write:Protocol.test_a_429_is_not_when_told']),
    ('cli/serve/rw.c', 'if (status >= 500 || (status == 429 && t->cfg.retry_429))',
     'if (status > 500 || (status == 429 && t->cfg.retry_429))', 'rw: a 500 not sent again',
     ['remote-write:Protocol.test_a_5xx_is_sent_again']),
    ('cli/serve/rw.c', 't->n--;\n\t\tatomic_fetch_add(&t->counts->dropped, 1);', 't->n--;',
     'rw: the queue\'s oldest dropped uncounted',
     ['remote-write:IntoPrometheus.test_a_small_queue_drops_the_oldest_and_counts_them']),
    # cli/serve/http.c, front.c: the HTTP front door (tests/cli/test_serve_front.py)
    ('cli/serve/http.c', '{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32768, NULL },',
     '{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 65536, NULL },',
     'http: a request of 64 KiB read (the limit doubled)',
     ['serve-front:Requests.test_malformed_requests_are_counted']),
    ('cli/serve/http.c',
     'return (len && len[strspn(len, "0")]) || /* a length of 0 ("0", "00") is none */\n'
     '\t       mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);',
     'return (len && len[strspn(len, "0")]); /* a length of 0 ("0", "00") is none */',
     'http: a chunked body waited for',
     ['serve-front:Requests.test_a_declared_body_is_answered_at_once']),
    ('cli/serve/front.c', '#define HEADER_NS 5000000000ull', '#define HEADER_NS 50000000000ull',
     'front: a stalled request held 50 s, not 5',
     ['serve-front:Requests.test_a_stalled_request_is_closed_and_counted']),
    ('cli/serve/front.c', 'if (!mine && own >= most)\n\t\treturn nw;',
     'if (!mine && own > most)\n\t\treturn nw;',
     'front: a newcomer from the busiest address closes an older one',
     ['serve-front:SlowHeaders']),
    # cli/cmd-serve.c: SIGHUP's listen, cli/serve/storeq.c: serve --store
    ('cli/cmd-serve.c', 'if (r == -EADDRINUSE && port_of(addr) == port_of(&rn->addr)) {',
     'if (r == -EADDRINUSE && port_of(addr) != port_of(&rn->addr)) {',
     'reload: a new address on the same port not rebound',
     ['serve:Reload.test_listen_and_store_in_the_file_move_on_sighup']),
    ('cli/serve/storeq.c', 'if (!sq->n) {\n\t\t\tpthread_mutex_unlock(&sq->lock);\n\t\t\treturn NULL;',
     'if (!sq->n || sq->stop) {\n\t\t\tpthread_mutex_unlock(&sq->lock);\n\t\t\treturn NULL;',
     'storeq: the queue not written at the end',
     ['serve:Store.test_store_records_every_interval']),
]


# The tests that can see a slip in a file (the first prefix that matches), for a mutant
# that names none: '@SUITE' a meson suite, 'NAME' a test, 'NAME:ARGS' a test with its
# arguments (a tests/cli script's one class or method).
TESTS = [
    ('lib/', ['@unit', '@sim', '@lib']),
    ('cli/serve/', ['expo', 'rw', 'serve-auth']),
    ('cli/store/', ['store']),
    ('cli/', ['@unit']),
]


def tests_of(m):
    if len(m) > 4:
        return m[4]
    return next(t for prefix, t in TESTS if m[0].startswith(prefix))


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)


def run_tests(build, tests):
    """meson test for each group of tests (the plain ones in one run, each with
    arguments alone): (passed, the names of those that failed)."""
    plain = [t for t in tests if ':' not in t]
    runs = [[a for t in plain for a in (['--suite', t[1:]] if t[0] == '@' else [t])]]
    runs = runs if plain else []
    runs += [[t.split(':', 1)[0], '--test-args=' + t.split(':', 1)[1]]
             for t in tests if ':' in t]
    ok, failed = True, []
    for args in runs:
        # not mutants-anchors: a mutant in the tree is what it fails on
        t = run(['meson', 'test', '-C', build, '--no-rebuild', '--print-errorlogs',
                 '--no-suite', 'mutants'] + args)
        ok &= t.returncode == 0
        failed += [n for n in dict.fromkeys(l.split()[3] for l in t.stdout.splitlines()
                                            if ' FAIL ' in l or ' TIMEOUT ' in l)
                   if n not in failed]  # meson says each twice: as it ends, in the summary
        if t.returncode != 0 and not failed:
            failed.append('meson test: exit %d' % t.returncode)
    return ok, failed


HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


class Interrupted(Exception):
    pass


def on_signal(signum, frame):
    raise Interrupted('signal %d' % signum)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build-mutants',
                    help='the mutants\' build directory (set up when missing)')
    ap.add_argument('--only', help='mutant numbers (1-based), comma separated')
    ap.add_argument('--list', action='store_true', help='check the anchors, list, stop')
    ap.add_argument('--no-baseline', action='store_true',
                    help='skip checking that the tests pass on the tree as it is')
    a = ap.parse_args()
    pick = [int(x) for x in a.only.split(',')] if a.only else range(1, len(MUTANTS) + 1)
    bad = []
    for i, m in enumerate(MUTANTS, 1):
        with open(os.path.join(ROOT, m[0])) as f:
            text = f.read()
        n = text.count(m[1])
        if n != 1:
            left = ' (the mutant is in it: git checkout %s)' % m[0] \
                if n == 0 and m[2] in text else ''
            bad.append('mutant %d: %s holds its text %d times, not once%s' % (i, m[0], n, left))
    if bad:
        sys.exit('\n'.join(bad))
    if a.list:
        for i, m in enumerate(MUTANTS, 1):
            print('%2d %-24s %s  [%s]' % (i, m[0], m[3], ' '.join(tests_of(m))))
        return
    build = os.path.join(ROOT, a.build) if not os.path.isabs(a.build) else a.build
    if not os.path.exists(os.path.join(build, 'build.ninja')):
        s = run(['meson', 'setup', build, '--buildtype=debugoptimized', '-Dtests=enabled'])
        if s.returncode != 0:
            sys.exit('meson setup %s failed:\n%s' % (build, s.stdout[-2000:] + s.stderr))
    b = run(['ninja', '-C', build])
    if b.returncode != 0:
        sys.exit('the tree as it is does not build in %s:\n%s' % (build, b.stdout[-3000:]))
    if not a.no_baseline:
        specs = sorted({tuple(tests_of(MUTANTS[i - 1])) for i in pick})
        for spec in specs:
            ok, failed = run_tests(build, list(spec))
            if not ok:
                sys.exit('the tree as it is fails %s: every mutant would look killed'
                         % ', '.join(failed))
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    killed = survived = 0
    by_file = {}
    try:
        for i in pick:
            m = MUTANTS[i - 1]
            path, old, new, why = m[:4]
            full = os.path.join(ROOT, path)
            with open(full) as f:
                text = f.read()
            t0 = time.time()
            try:
                with open(full, 'w') as f:
                    f.write(text.replace(old, new))
                b = run(['ninja', '-C', build])
                if b.returncode != 0:
                    verdict, failed = 'killed (build)', []
                else:
                    ok, failed = run_tests(build, tests_of(m))
                    verdict = 'SURVIVED' if ok else 'killed'
            finally:
                # a signal now would leave the file half written: held until it is whole
                mask = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
                with open(full, 'w') as f:
                    f.write(text)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            killed += verdict.startswith('killed')
            survived += verdict == 'SURVIVED'
            k = by_file.setdefault(path, [0, 0])
            k[verdict == 'SURVIVED'] += 1
            print('%2d %-8s %-24s %s%s (%.0f s)' % (i, verdict.split()[0], path, why,
                                                 ' [%s]' % ', '.join(failed) if failed else '',
                                                 time.time() - t0), flush=True)
    except (KeyboardInterrupt, Interrupted) as e:
        print('interrupted (%s): the tree is as it was' % (e or 'Ctrl-C'), flush=True)
        sys.exit(130)
    finally:
        run(['ninja', '-C', build])
    for path, (k, s_) in sorted(by_file.items()):
        print('   %-24s %d killed, %d survived' % (path, k, s_))
    print('%d mutants: %d killed, %d survived' % (killed + survived, killed, survived))


if __name__ == '__main__':
    main()
