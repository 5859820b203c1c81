#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes dist/grafana/pmumon.json, the Grafana dashboard over pmumon serve's
series (docs/serve.md, "Dashboard"). Run it after changing a panel:

    scripts/grafana-dashboard.py > dist/grafana/pmumon.json

tests/cli/test_serve.py checks that the file is what this prints, and runs
every query in a real Prometheus without the recording rules: every panel
reads the raw counters (rate() over Grafana's $__rate_interval), so the
rules make it faster but are never needed.

Places in legends: a row's place labels differ by platform (Yitian 710: die
and channel; EPYC: socket and channel; Merrifield: channel; BlueField: the
device), so each query gives its series a label `where` made of the ones it
has ("socket1/ch3", "die0/ch2"), never an empty "die ch0"."""
import json
import sys

SEL = 'job=~"$job", instance=~"$instance"'
FLEET = 'job=~"$job", instance=~"$instance"'
PLACE = 'device, subchannel, place'  # a channel's sub-channels and devices added
ALL_PLACES = 'metric, device, socket, die, channel, subchannel, place'


def where(expr, *labels):
    """expr with a label `where`: 'socket1/die0/ch3' of the labels it has."""
    parts = {'socket': 'socket', 'die': 'die', 'channel': 'ch', 'bank': 'bank',
             'device': '', 'direction': ''}
    out = expr
    names = []
    for i, lab in enumerate(labels):
        tmp = 'where_%d' % i
        out = 'label_replace(%s, "%s", "%s$1", "%s", "(.+)")' % (out, tmp, parts[lab], lab)
        names.append(tmp)
    # join the pieces that are there with "/" (label_join keeps empty ones: trimmed below)
    out = 'label_join(%s, "where", "/", %s)' % (out, ', '.join('"%s"' % n for n in names))
    out = 'label_replace(%s, "where", "$1", "where", "/*(.*?)/*")' % out
    out = 'label_replace(%s, "where", "$1/$2", "where", "(.*?)//+(.*)")' % out
    return out


def per_channel(family):
    return where('sum without (%s) (rate(%s{%s}[$__rate_interval]))' % (PLACE, family, SEL),
                 'socket', 'die', 'channel')


def panel(title, exprs, unit, x, y, w=12, h=8, kind='timeseries', desc=None, minimum=0,
          legend='{{instance}} {{where}}', extra=None):
    p = {
        'type': kind,
        'title': title,
        'gridPos': {'h': h, 'w': w, 'x': x, 'y': y},
        'datasource': {'type': 'prometheus', 'uid': '${datasource}'},
        'fieldConfig': {'defaults': {'unit': unit}, 'overrides': []},
        'targets': [{'refId': chr(ord('A') + i), 'expr': e, 'legendFormat': legend}
                    for i, e in enumerate(exprs)],
    }
    if minimum is not None:
        p['fieldConfig']['defaults']['min'] = minimum
    if desc:
        p['description'] = desc
    if kind == 'timeseries':
        p['options'] = {'legend': {'displayMode': 'table', 'placement': 'right',
                                   'calcs': ['lastNotNull', 'mean', 'max']},
                        'tooltip': {'mode': 'multi', 'sort': 'desc'}}
    if extra:
        p.update(extra)
    return p


def row(title, y):
    return {'type': 'row', 'title': title, 'collapsed': False,
            'gridPos': {'h': 1, 'w': 24, 'x': 0, 'y': y}, 'panels': []}


def dashboard():
    panels = []
    y = 0
    panels.append(row('Fleet', y))
    y += 1
    panels.append(panel(
        'Memory traffic per host', [
            'sum without (%s) (rate(pmumon_memory_bytes_total{%s}[$__rate_interval]))'
            % (ALL_PLACES, FLEET)],
        'Bps', 0, y, legend='{{instance}}',
        desc='Every channel of each host added: reads and writes (EPYC\'s DF counts both).'))
    panels.append(panel(
        'Busiest channels in the fleet (top 10)', [
            'topk(10, %s)' % per_channel('pmumon_memory_bytes_total').replace(SEL, FLEET)],
        'Bps', 12, y,
        desc='The ten channels with the most traffic over the window, whichever host.'))
    y += 8
    panels.append(panel(
        'Channel utilisation across the fleet (share of peak)', [
            'sum without (%s) (rate(pmumon_memory_bytes_total{%s}[$__rate_interval])) '
            '/ on (job, instance) group_left pmumon_memory_peak_bytes_per_second{%s}'
            % (PLACE, FLEET, FLEET)],
        'percentunit', 0, y, kind='heatmap', legend='{{instance}}',
        desc='How many channels run at each share of their peak (serve --define '
             'channel_peak=B/s; hosts without a peak are not in it). One colour a cell: '
             'the count of channels there.',
        extra={'options': {'calculate': True, 'yAxis': {'unit': 'percentunit'},
                           'color': {'scheme': 'Oranges', 'mode': 'scheme'},
                           'cellGap': 1}}))
    panels.append(panel(
        'Channel bandwidth across the fleet', [
            'sum without (%s) (rate(pmumon_memory_bytes_total{%s}[$__rate_interval]))'
            % (PLACE, FLEET)],
        'Bps', 12, y, kind='heatmap', legend='{{instance}}',
        desc='How many channels carry each bandwidth: the whole fleet in one picture, '
             'however many hosts.',
        extra={'options': {'calculate': True, 'yAxis': {'unit': 'Bps'},
                           'color': {'scheme': 'Blues', 'mode': 'scheme'},
                           'cellGap': 1}}))
    y += 8
    panels.append(row('Host', y))
    y += 1
    panels.append(panel('Memory read bandwidth per channel',
                        [per_channel('pmumon_memory_read_bytes_total')], 'Bps', 0, y))
    panels.append(panel('Memory write bandwidth per channel',
                        [per_channel('pmumon_memory_write_bytes_total')], 'Bps', 12, y))
    y += 8
    panels.append(panel('Memory traffic per channel',
                        [per_channel('pmumon_memory_bytes_total')], 'Bps', 0, y,
                        desc='Reads and writes of each channel (a Yitian channel\'s two '
                             'sub-channels added).'))
    panels.append(panel(
        'Channel share of peak', [
            where('sum without (%s) (rate(pmumon_memory_bytes_total{%s}[$__rate_interval])) '
                  '/ on (job, instance) group_left pmumon_memory_peak_bytes_per_second{%s}'
                  % (PLACE, SEL, SEL), 'socket', 'die', 'channel')],
        'percentunit', 12, y,
        desc='Only where serve was given --define channel_peak=B/s: pmumon knows no '
             'channel\'s peak by itself.'))
    y += 8
    panels.append(panel(
        'L3 miss ratio (EPYC)', [
            where('rate(pmumon_l3_miss_ratio_numerator_total{%s}[$__rate_interval]) '
                  '/ rate(pmumon_l3_miss_ratio_denominator_total{%s}[$__rate_interval])'
                  % (SEL, SEL), 'socket', 'device')],
        'percentunit', 0, y, desc='Misses over accesses of the window, per socket.'))
    panels.append(panel(
        'L3 hit ratio (BlueField)', [
            where('rate(pmumon_l3_hit_ratio_numerator_total{%s}[$__rate_interval]) '
                  '/ rate(pmumon_l3_hit_ratio_denominator_total{%s}[$__rate_interval])'
                  % (SEL, SEL), 'device', 'bank')],
        'percentunit', 12, y, desc='Hits over accesses of the window, per bank.'))
    y += 8
    panels.append(panel(
        'Memory requests (BlueField)', [
            where('rate(pmumon_memory_read_requests_total{%s}[$__rate_interval])' % SEL,
                  'device'),
            where('rate(pmumon_memory_write_requests_total{%s}[$__rate_interval])' % SEL,
                  'device')],
        'reqps', 0, y, legend='{{instance}} {{where}} {{metric}}',
        desc='Requests of a size no document gives: counted, not bytes.'))
    panels.append(panel(
        'PCIe bytes (BlueField)', [
            where('rate(pmumon_pcie_in_bytes_total{%s}[$__rate_interval])' % SEL, 'device'),
            where('rate(pmumon_pcie_out_bytes_total{%s}[$__rate_interval])' % SEL,
                  'device')],
        'Bps', 12, y, legend='{{instance}} {{where}} {{metric}}'))
    y += 8
    panels.append(row('Trust', y))
    y += 1
    panels.append(panel(
        'Least share of time counted', [
            'min without (pmu, event, metric, unit, device, socket, die, channel, subchannel, '
            'cpu, domain, place, cgroup) (rate(pmumon_running_seconds_total{%s}'
            '[$__rate_interval]) / rate(pmumon_enabled_seconds_total{%s}[$__rate_interval]))'
            % (SEL, SEL)],
        'percentunit', 0, y, legend='{{instance}}',
        desc='1: every value counted all the time. Below: some value was extrapolated '
             '(multiplexed) for that share of the window.'))
    panels.append(panel(
        'Series without a value (share of time)', [
            where('rate(pmumon_uncounted_seconds_total{%s}[$__rate_interval]) > 0' % SEL,
                  'socket', 'die', 'channel', 'device')],
        'percentunit', 12, y, legend='{{instance}} {{event}}{{metric}} {{where}}',
        desc='A series that had no value (not counted, undefined, its device gone) for that '
             'share of the window: its counter stood still, which is not an idle device.'))
    y += 8
    panels.append(panel(
        'Samples read late (share)', [
            'rate(pmumon_samples_late_total{%s}[$__rate_interval]) '
            '/ rate(pmumon_samples_total{%s}[$__rate_interval])' % (SEL, SEL)],
        'percentunit', 0, y, legend='{{instance}}',
        desc='Samples that started more than half an interval late, between scrapes too.'))
    panels.append(panel('Devices up', ['pmumon_device_up{%s}' % SEL], 'none', 12, y,
                        legend='{{instance}} {{device}} {{socket}}',
                        kind='state-timeline', minimum=None))
    for i, p in enumerate(panels):
        p['id'] = i + 1
    variables = [
        {'name': 'datasource', 'type': 'datasource', 'query': 'prometheus',
         'label': 'Data source'},
        {'name': 'job', 'type': 'query', 'label': 'Job',
         'datasource': {'type': 'prometheus', 'uid': '${datasource}'},
         'query': 'label_values(pmumon_build_info, job)',
         'includeAll': True, 'multi': True, 'allValue': '.*',
         'current': {'text': 'All', 'value': '$__all'}, 'refresh': 2},
        {'name': 'platform', 'type': 'query', 'label': 'Platform',
         'datasource': {'type': 'prometheus', 'uid': '${datasource}'},
         'query': 'label_values(pmumon_build_info{job=~"$job"}, platform)',
         'includeAll': True, 'multi': True, 'allValue': '.*',
         'current': {'text': 'All', 'value': '$__all'}, 'refresh': 2},
        {'name': 'instance', 'type': 'query', 'label': 'Instance',
         'datasource': {'type': 'prometheus', 'uid': '${datasource}'},
         'query': 'label_values(pmumon_build_info{job=~"$job", platform=~"$platform"}, '
                  'instance)',
         'includeAll': True, 'multi': True, 'allValue': '.*',
         'current': {'text': 'All', 'value': '$__all'}, 'refresh': 2},
    ]
    return {
        'title': 'pmumon: memory, caches and links',
        'uid': 'pmumon',
        'schemaVersion': 39,
        'version': 2,
        'editable': True,
        'refresh': '30s',
        'time': {'from': 'now-1h', 'to': 'now'},
        'description': 'pmumon serve (docs/serve.md, "Dashboard"). Every panel is rate() of '
                       'counters over the panel\'s window: right at any scrape interval. '
                       'Generated by scripts/grafana-dashboard.py.',
        'templating': {'list': variables},
        'panels': panels,
    }


if __name__ == '__main__':
    json.dump(dashboard(), sys.stdout, indent=1)
    sys.stdout.write('\n')
