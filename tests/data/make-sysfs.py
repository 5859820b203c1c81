#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the fixture sysfs/procfs trees the tests read, from the kernel facts.

usage: make-sysfs.py OUTDIR

Every value below comes from docs/kernel-facts.md (section given)
or docs/facts-perf-tools.md; where a fixture needs a value the facts do not
fix (perf type numbers, which CPU a cpumask names, die ids on arm64), the
comment says it is illustrative. Text formats are the drivers' own
(e.g. ali_drw prints events as "config=0x%lx\n").

Machines:
  yitian710-2die   Alibaba Yitian 710: 128 CPUs on 2 dies, 16 ali_drw PMUs
  epyc7742-1s      AMD EPYC 7742: 64 cores / 128 threads, amd_df, amd_l3 (F17h
                   formats), msr, cpu, software, tracepoint
  malformed        one PMU per kind of broken sysfs content, for error paths
  numa-gaps        4 CPUs on 2 cores whose sysfs leaves things out: node0 lists
                   CPUs 0-1, node1 has no cpulist (CPUs 2-3 are in no node);
                   CPU 3 has no cache directory (rows per core, node, cache)
  spr-1s, zen4-1s, hybrid-ff, n2-cmn
                   the CPUs of tests/data/pmu-events (perf's files; test-jevents.c):
                   a Sapphire Rapids (GenuineIntel-6-8F), a Zen 4 (AuthenticAMD-25-11),
                   a hybrid with every uncore Unit of the synthetic table
                   (GenuineIntel-6-FF, not a real part), a Neoverse N2 (MIDR
                   0x410fd493, r0p3) with two CMNs, one of them a near miss of
                   cmn.json's Compat. PMU type numbers, cpumasks and formats are
                   illustrative; names follow the kernel's (uncore_<box>_<n>,
                   cpu_core/cpu_atom with a cpus file, armv8_pmuv3_0, arm_cmn_<n>)
"""
import os
import sys

# kernel-facts §1.4: sysfs event name -> config (53 entries)
ALI_DRW_EVENTS = {
    'hif_rd_or_wr': 0x00, 'hif_wr': 0x01, 'hif_rd': 0x02, 'hif_rmw': 0x03,
    'hif_hi_pri_rd': 0x04, 'dfi_wr_data_cycles': 0x07, 'dfi_rd_data_cycles': 0x08,
    'hpr_xact_when_critical': 0x09, 'lpr_xact_when_critical': 0x0a,
    'wr_xact_when_critical': 0x0b, 'op_is_activate': 0x0c, 'op_is_rd_or_wr': 0x0d,
    'op_is_rd_activate': 0x0e, 'op_is_rd': 0x0f, 'op_is_wr': 0x10, 'op_is_mwr': 0x11,
    'op_is_precharge': 0x12, 'precharge_for_rdwr': 0x13, 'precharge_for_other': 0x14,
    'rdwr_transitions': 0x15, 'write_combine': 0x16, 'war_hazard': 0x17,
    'raw_hazard': 0x18, 'waw_hazard': 0x19, 'op_is_enter_selfref_rk0': 0x1a,
    'op_is_enter_selfref_rk1': 0x1b, 'op_is_enter_selfref_rk2': 0x1c,
    'op_is_enter_selfref_rk3': 0x1d, 'op_is_enter_powerdown_rk0': 0x1e,
    'op_is_enter_powerdown_rk1': 0x1f, 'op_is_enter_powerdown_rk2': 0x20,
    'op_is_enter_powerdown_rk3': 0x21, 'selfref_mode_rk0': 0x26,
    'selfref_mode_rk1': 0x27, 'selfref_mode_rk2': 0x28, 'selfref_mode_rk3': 0x29,
    'op_is_refresh': 0x2a, 'op_is_crit_ref': 0x2b, 'op_is_load_mode': 0x2d,
    'op_is_zqcl': 0x2e, 'visible_window_limit_reached_rd': 0x30,
    'visible_window_limit_reached_wr': 0x31, 'op_is_dqsosc_mpc': 0x34,
    'op_is_dqsosc_mrr': 0x35, 'op_is_tcr_mrr': 0x36, 'op_is_zqstart': 0x37,
    'op_is_zqlatch': 0x38, 'chi_txreq': 0x39, 'chi_txdat': 0x3a, 'chi_rxdat': 0x3b,
    'chi_rxrsp': 0x3c, 'tsz_vio': 0x3d, 'cycle': 0x80,
}
assert len(ALI_DRW_EVENTS) == 53

# kernel-facts §1.1: die 0 sub-channel PMUs; die 1 names start ali_drw_400...
# (the doc's example is ali_drw_40021000; the rest follow the same base + 0x40000000).
ALI_DRW_DIE0 = ['21000', '21080', '23000', '23080', '25000', '25080', '27000', '27080']
ALI_DRW_DIE1 = ['400' + s for s in ALI_DRW_DIE0]


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def cpu_list(cpus):
    out, i = [], 0
    cpus = sorted(cpus)
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else '%d-%d' % (cpus[i], cpus[j]))
        i = j + 1
    return ','.join(out)


def topology(root, cpus):
    """cpus: list of (cpu, package, die, core)."""
    write(root, 'sys/devices/system/cpu/online', cpu_list([c[0] for c in cpus]) + '\n')
    for cpu, pkg, die, core in cpus:
        base = 'sys/devices/system/cpu/cpu%d/topology/' % cpu
        write(root, base + 'physical_package_id', '%d\n' % pkg)
        write(root, base + 'die_id', '%d\n' % die)
        write(root, base + 'core_id', '%d\n' % core)


def pmu(root, name, type_, cpumask=None, formats=None, events=None, extra=None):
    base = 'sys/bus/event_source/devices/%s/' % name
    write(root, base + 'type', '%d\n' % type_)
    write(root, base + 'perf_event_mux_interval_ms', '4\n')
    if cpumask is not None:
        write(root, base + 'cpumask', cpumask + '\n')
    for k, v in (formats or {}).items():
        write(root, base + 'format/' + k, v + '\n')
    for k, v in (events or {}).items():
        write(root, base + 'events/' + k, v + '\n')
    for k, v in (extra or {}).items():
        write(root, base + k, v)


def common(root, paranoid=2):
    # generic PMUs every kernel has; type numbers are the uapi's fixed ones
    pmu(root, 'software', 1)
    pmu(root, 'tracepoint', 2)
    write(root, 'proc/sys/kernel/perf_event_paranoid', '%d\n' % paranoid)


def yitian710(root):
    # 128 CPUs, 64 per die. Illustrative: package 0 for all, die_id 0/1, and
    # each die's PMUs probed by that die's first CPU (facts §1.3: one CPU).
    topology(root, [(c, 0, c // 64, c % 64) for c in range(128)])
    common(root)
    events = {k: 'config=0x%x' % v for k, v in ALI_DRW_EVENTS.items()}
    type_ = 11
    for die, names in ((0, ALI_DRW_DIE0), (1, ALI_DRW_DIE1)):
        for n in names:
            # facts §1.6: mainline names the identifier file ali_drw_pmu_identifier
            pmu(root, 'ali_drw_' + n, type_, cpumask=str(die * 64),
                formats={'event': 'config:0-7'}, events=events,
                extra={'ali_drw_pmu_identifier': 'ali_drw_pmu\n'})
            type_ += 1
    write(root, 'proc/cpuinfo', 'processor\t: 0\nBogoMIPS\t: 100.00\nCPU implementer\t: 0x41\n')


def epyc7742(root):
    # EPYC 7742: 64 cores, SMT siblings numbered +64 (Linux's usual x86 order);
    # 16 CCX of 4 cores each (facts §3.6: L3 per CCX on Zen 2).
    cpus = [(c, 0, 0, c % 64) for c in range(128)]
    topology(root, cpus)
    common(root)
    # arch/x86/events/amd/core.c amd_format_attr (docs/facts-perf-tools.md §9)
    pmu(root, 'cpu', 4, formats={'event': 'config:0-7,32-35', 'umask': 'config:8-15',
                                 'edge': 'config:18', 'inv': 'config:23',
                                 'cmask': 'config:24-31'})
    # facts §4: msr format config:0-63 (the sysfs file says event), events event=0x..
    pmu(root, 'msr', 10, formats={'event': 'config:0-63'},
        events={'tsc': 'event=0x00', 'aperf': 'event=0x01', 'mperf': 'event=0x02'})
    # facts §3.2 F17h-F19h without PerfMonV2; §3.4: DF one CPU per die/socket
    pmu(root, 'amd_df', 12, cpumask='0',
        formats={'event': 'config:0-7,32-35,59-60', 'umask': 'config:8-15'})
    # facts §3.2 F17h/F18h amd_l3; cpumask: first CPU of each CCX
    pmu(root, 'amd_l3', 13, cpumask=','.join(str(c) for c in range(0, 64, 4)),
        formats={'event': 'config:0-7', 'umask': 'config:8-15',
                 'slicemask': 'config:48-51', 'threadmask': 'config:56-63'})
    # perf's CPUID string AuthenticAMD-23-31-0 (docs/facts-perf-tools.md §3)
    write(root, 'proc/cpuinfo', 'processor\t: 0\nvendor_id\t: AuthenticAMD\n'
          'cpu family\t: 23\nmodel\t\t: 49\nmodel name\t: AMD EPYC 7742 64-Core Processor\n'
          'stepping\t: 0\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n')


def malformed(root):
    topology(root, [(c, 0, 0, c) for c in range(4)])
    common(root)
    pmu(root, 'good', 20, formats={'event': 'config:0-7'}, events={'ok': 'event=0x1'})
    pmu(root, 'badformat', 21, formats={'event': 'config:0-7x', 'umask': 'config:8-15'},
        events={'ok': 'event=0x1'})
    pmu(root, 'badtype', 0)
    write(root, 'sys/bus/event_source/devices/badtype/type', 'twelve\n')
    pmu(root, 'badmask', 23, cpumask='0-')
    pmu(root, 'badscale', 24, formats={'event': 'config:0-7'},
        events={'joules': 'event=0x2'},
        extra={'events/joules.scale': '1,5e-3\n', 'events/joules.unit': 'Joules\n'})
    pmu(root, 'notype', 25)
    os.remove(os.path.join(root, 'sys/bus/event_source/devices/notype/type'))


def numa_gaps(root):
    # illustrative: what a kernel shows when firmware tables leave things out
    topology(root, [(c, 0, 0, c // 2) for c in range(4)])
    common(root)
    write(root, 'sys/devices/system/node/node0/cpulist', '0-1\n')
    os.makedirs(os.path.join(root, 'sys/devices/system/node/node1'), exist_ok=True)
    write(root, 'sys/devices/system/node/online', '0-1\n')
    for cpu in range(3):
        for idx, (level, type_, shared) in enumerate(
                ((1, 'Data', str(cpu)), (1, 'Instruction', str(cpu)),
                 (2, 'Unified', '0-1' if cpu < 2 else '2-3'))):
            base = 'sys/devices/system/cpu/cpu%d/cache/index%d/' % (cpu, idx)
            write(root, base + 'level', '%d\n' % level)
            write(root, base + 'type', type_ + '\n')
            write(root, base + 'shared_cpu_list', shared + '\n')


def intel_cpuinfo(root, model, stepping):
    write(root, 'proc/cpuinfo', 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n'
          'model\t\t: %d\nstepping\t: %d\n' % (model, stepping))


def uncore(root, names, type_):
    for n in names:
        pmu(root, n, type_, cpumask='0', formats={'event': 'config:0-7', 'umask': 'config:8-15'})
        type_ += 1


# The Intel core PMU's slots and perf-metrics events (arch/x86/events/intel/core.c,
# EVENT_ATTR_STR(slots / topdown-*, ...)) that perf's tma_* metrics name.
SPR_TOPDOWN = {
    'slots': 'event=0x00,umask=0x4', 'topdown-retiring': 'event=0x00,umask=0x80',
    'topdown-bad-spec': 'event=0x00,umask=0x81', 'topdown-fe-bound': 'event=0x00,umask=0x82',
    'topdown-be-bound': 'event=0x00,umask=0x83', 'topdown-heavy-ops': 'event=0x00,umask=0x84',
    'topdown-br-mispredict': 'event=0x00,umask=0x85',
    'topdown-fetch-lat': 'event=0x00,umask=0x86', 'topdown-mem-bound': 'event=0x00,umask=0x87',
}


def spr(root):
    topology(root, [(c, 0, 0, c) for c in range(8)])
    common(root)
    pmu(root, 'cpu', 4, formats={'event': 'config:0-7', 'umask': 'config:8-15',
                                 'edge': 'config:18', 'inv': 'config:23', 'cmask': 'config:24-31',
                                 'ldlat': 'config1:0-15', 'offcore_rsp': 'config1:0-63',
                                 'frontend': 'config1:0-23'},
        events=SPR_TOPDOWN)
    uncore(root, ['uncore_m2hbm_0', 'uncore_m2hbm_1'], 20)
    intel_cpuinfo(root, 0x8F, 8)


def hybrid_ff(root):
    topology(root, [(c, 0, 0, c) for c in range(8)])
    common(root)
    for name, type_, cpus in (('cpu_core', 4, '0-3'), ('cpu_atom', 8, '4-7')):
        pmu(root, name, type_, formats={'event': 'config:0-7', 'umask': 'config:8-15'},
            extra={'cpus': cpus + '\n'})
    # arch/x86/events/msr.c: the free-running TSC (hybrid metrics name msr@tsc\,cpu=cpu_core@)
    pmu(root, 'msr', 9, formats={'event': 'config:0-63'}, events={'tsc': 'event=0x00'})
    uncore(root, ['uncore_cbox_0', 'uncore_cbox_1', 'uncore_qpi_0', 'uncore_upi_0',
                  'uncore_sbox_0', 'uncore_arb', 'uncore_imc_free_running_0',
                  'uncore_iio_free_running_0', 'uncore_cha_0', 'uncore_cha_1', 'uncore_imc_0',
                  'uncore_imc_1', 'uncore_iio_0'], 20)
    intel_cpuinfo(root, 0xFF, 0)


def zen4(root):
    topology(root, [(c, 0, 0, c) for c in range(8)])
    common(root)
    # arch/x86/events/amd/core.c amd_format_attr (perf's zen4 metrics use cmask)
    pmu(root, 'cpu', 4, formats={'event': 'config:0-7,32-35', 'umask': 'config:8-15',
                                 'edge': 'config:18', 'inv': 'config:23', 'cmask': 'config:24-31'})
    pmu(root, 'amd_l3', 13, cpumask='0', formats={'event': 'config:0-7', 'umask': 'config:8-15'})
    write(root, 'proc/cpuinfo', 'processor\t: 0\nvendor_id\t: AuthenticAMD\n'
          'cpu family\t: 25\nmodel\t\t: 17\nstepping\t: 1\n')


def n2_cmn(root):
    topology(root, [(c, 0, 0, c) for c in range(8)])
    common(root)
    # caps/slots: the PMU's PMMIR_EL1.SLOTS (drivers/perf/arm_pmuv3.c); Neoverse N2 has 5
    pmu(root, 'armv8_pmuv3_0', 8, formats={'event': 'config:0-15'},
        extra={'cpus': '0-7\n', 'caps/slots': '5\n'})
    for n, ident, type_ in (('arm_cmn_0', '43c01', 30), ('arm_cmn_1', '0434', 31)):
        pmu(root, n, type_, cpumask='0', formats={'type': 'config:0-15', 'eventid': 'config:16-26'},
            extra={'identifier': ident + '\n'})
    for c in range(8):
        write(root, 'sys/devices/system/cpu/cpu%d/regs/identification/midr_el1' % c,
              '0x00000000410fd493\n')
    write(root, 'proc/cpuinfo', 'processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n')


def main():
    out = sys.argv[1]
    for name, fn in (('yitian710-2die', yitian710), ('epyc7742-1s', epyc7742),
                     ('malformed', malformed), ('numa-gaps', numa_gaps), ('spr-1s', spr),
                     ('zen4-1s', zen4), ('hybrid-ff', hybrid_ff), ('n2-cmn', n2_cmn)):
        fn(os.path.join(out, name))
    with open(os.path.join(out, 'stamp'), 'w') as f:
        f.write('ok\n')


if __name__ == '__main__':
    main()
