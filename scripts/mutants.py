#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A mutation sample over lib/'s hot files: each mutant is one plausible slip
(a comparison turned, an off-by-one, a flag dropped, a term lost), made in the
source, built, and run against the unit, sim and lib suites; a mutant the
suites fail on is killed, one they pass survived. The tree is put back after
each (and on Ctrl-C). The results, with why each survivor lives, are in
docs/mutation.md.

usage: scripts/mutants.py [--build DIR] [--only N,...] [--list]
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')

# (file, the text as it is (exactly once in the file), the mutant, what the slip is)
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
    ('lib/metric/expr.c', 'c = b == 0 ? NAN : a / b; /* perf aborts the metric: no value */',
     'c = b == 0 ? 0 : a / b;', 'expr: x/0 is 0, not NaN'),
    ('lib/metric/expr.c', 'c = isnan(a) || isnan(b) ? NAN : b == 0 ? 0 : a / b;',
     'c = b == 0 ? 0 : a / b;', 'expr: d_ratio of a NaN is a number'),
    ('lib/metric/expr.c', 'c = isnan(a) || isnan(b) ? NAN : a < b ? a : b;',
     'c = isnan(a) || isnan(b) ? NAN : a > b ? a : b;', 'expr: min is max'),
    ('lib/metric/expr.c', 'st[sp - 1] = isnan(c) ? NAN : c != 0 ? a : b;',
     'st[sp - 1] = c != 0 ? a : b;', 'expr: a NaN condition selects'),
    ('lib/metric/expr.c', 'c = isnan(a) || isnan(b) ? NAN : a < b;\n',
     'c = isnan(a) || isnan(b) ? NAN : a <= b;\n', 'expr: < is <='),
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
    ('lib/source/perf/perf.c', 'c->last_good = (struct pm_reading){ buf[3 + m], buf[1], buf[2] };',
     'c->last_good = (struct pm_reading){ buf[3 + m], buf[2], buf[1] };',
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
]


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--only', help='mutant numbers (1-based), comma separated')
    ap.add_argument('--list', action='store_true')
    a = ap.parse_args()
    pick = [int(x) for x in a.only.split(',')] if a.only else range(1, len(MUTANTS) + 1)
    for i, (path, old, new, why) in enumerate(MUTANTS, 1):
        with open(os.path.join(ROOT, path)) as f:
            n = f.read().count(old)
        if n != 1:
            sys.exit('mutant %d: %s holds its text %d times, not once' % (i, path, n))
    if a.list:
        for i, (path, _, _, why) in enumerate(MUTANTS, 1):
            print('%2d %-24s %s' % (i, path, why))
        return
    killed = survived = 0
    for i in pick:
        path, old, new, why = MUTANTS[i - 1]
        full = os.path.join(ROOT, path)
        with open(full) as f:
            text = f.read()
        t0 = time.time()
        try:
            with open(full, 'w') as f:
                f.write(text.replace(old, new))
            b = run(['ninja', '-C', a.build])
            if b.returncode != 0:
                verdict, failed = 'killed (build)', []
            else:
                t = run(['meson', 'test', '-C', a.build, '--no-rebuild', '--suite', 'unit',
                         '--suite', 'sim', '--suite', 'lib'])
                failed = [l.split()[3] for l in t.stdout.splitlines()
                          if ' FAIL ' in l or ' TIMEOUT ' in l]
                verdict = 'killed' if t.returncode != 0 else 'SURVIVED'
        finally:
            with open(full, 'w') as f:
                f.write(text)
        killed += verdict.startswith('killed')
        survived += verdict == 'SURVIVED'
        print('%2d %-8s %-24s %s%s (%.0f s)' % (i, verdict.split()[0], path, why,
                                             ' [%s]' % ', '.join(failed) if failed else '',
                                             time.time() - t0), flush=True)
    run(['ninja', '-C', a.build])
    print('%d mutants: %d killed, %d survived' % (killed + survived, killed, survived))


if __name__ == '__main__':
    main()
