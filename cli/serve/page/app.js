// SPDX-License-Identifier: GPL-2.0-only
// pmumon serve's live page: the screen top shows, from /api/v1/range's kinds
// (cli/screen.c), refreshed every interval: one chart per kind with a line
// per place (its axis from 0), and beside it every place's current value and
// the totals per die, socket and machine (or why a kind has none). Each
// chart mirrors its latest values into data-series and data-totals
// (label -> value, null when not counted), the sample's time into data-t and
// its axis's start into data-y-min, which the browser test reads.
(function () {
	'use strict';
	var WINDOW_S = 600;
	var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
		'#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#393b79', '#ad494a', '#637939',
		'#7b4173', '#e6550d', '#3182bd'];
	var charts = {};

	function getJSON(url) {
		return fetch(url).then(function (r) {
			if (!r.ok)
				throw new Error(url + ': ' + r.status);
			return r.json();
		});
	}

	function last(a) {
		return a.length ? a[a.length - 1] : null;
	}

	// a value in its kind's unit, as top prints it: a plain count per second with
	// its SI prefix (18.378 M/s), the rest with three decimals
	function fmt(v, unit) {
		var prefix = '';
		if (v === null || v === undefined)
			return 'not counted';
		if (unit.charAt(0) === '/' && Math.abs(v) >= 1e9) {
			v /= 1e9;
			prefix = 'G';
		} else if (unit.charAt(0) === '/' && Math.abs(v) >= 1e6) {
			v /= 1e6;
			prefix = 'M';
		}
		return (Math.abs(v) >= 1e8 ? v.toExponential(4) : v.toFixed(3)) + ' ' + prefix + unit;
	}

	// an estimate's 95 % interval, as top marks it: its wider side in % of the value
	function interval(v, multiplexed) {
		if (!v || v.bound === 'exact' || v.bound === 'no_value' || v.bound === undefined)
			return null;
		if (v.bound === 'measured' && v.bound_pct !== null)
			return '\u00b1' + (v.bound_pct < 0.01 ? '<0.01' :
					    v.bound_pct < 9.95 ? v.bound_pct.toFixed(1) :
					    v.bound_pct.toFixed(0)) + '%';
		return multiplexed ? '\u00b1?%' : null;
	}

	// the doubts of a value, as top marks them: (33%) counted a third of the time and
	// scaled, its interval (docs/bounds.md), ~ an approximate formula, partial c/i of its
	// devices, the rest by name
	function marks(range, f, running, total, v) {
		var names = [], iv;
		Object.keys(range.flag_names).forEach(function (bit) {
			var name = range.flag_names[bit];
			if (!(f & Number(bit)) || name === 'metric' || name === 'snapshot' ||
			    name === 'not_counted' || name === 'partial')
				return;
			if (name === 'multiplexed')
				names.push(running === null ? 'multiplexed' :
					   '(' + Math.round(running * 100) + '%)');
			else if (name === 'approximate')
				names.push('~');
			else
				names.push(name);
		});
		if (total && total.instances && total.covered < total.instances)
			names.push('partial ' + total.covered + '/' + total.instances);
		else if (!total && (f & 512))
			names.push('partial');
		iv = interval(v, (f & 1) !== 0);
		if (iv) /* after the running share, as top: (33%) ±1.2% ~ */
			names.splice(names.length && names[0].charAt(0) === '(' ? 1 : 0, 0, iv);
		return names.join(' ');
	}

	// an axis's numbers, short: 3.2G rather than 3,200,000,000
	function short(v) {
		var a = Math.abs(v);
		if (a >= 1e9)
			return +(v / 1e9).toPrecision(4) + 'G';
		if (a >= 1e6)
			return +(v / 1e6).toPrecision(4) + 'M';
		if (a >= 1e4)
			return +(v / 1e3).toPrecision(4) + 'k';
		return +v.toPrecision(4) + '';
	}

	function cell(tr, text, cls) {
		var td = document.createElement('td');
		td.textContent = text;
		if (cls)
			td.className = cls;
		tr.appendChild(td);
		return td;
	}

	function makeChart(kind) {
		var el = document.createElement('div'), h = document.createElement('h2');
		var what = document.createElement('div'), body = document.createElement('div');
		var plotEl = document.createElement('div'), table = document.createElement('table');
		el.className = 'chart';
		h.textContent = kind.name + (kind.unit ? ' (' + kind.unit + ')' : '');
		what.className = 'what';
		what.textContent = (kind.what ? kind.what : '') +
			(kind.measure === 'amount' ? (kind.what ? '; ' : '') +
			 (kind.from ? kind.from : 'counts') + ' in each interval, shown per second' : '');
		body.className = 'body';
		table.className = 'now';
		el.appendChild(h);
		el.appendChild(what);
		body.appendChild(plotEl);
		body.appendChild(table);
		el.appendChild(body);
		document.getElementById('charts').appendChild(el);
		var series = [{}].concat(kind.items.map(function (it, i) {
			return { label: it.label, stroke: COLORS[i % COLORS.length], spanGaps: false };
		}));
		// every kind's values are 0 or more: its axis starts at 0, so a 0.004 % wobble
		// is not drawn as a spike
		var fromZero = kind.measure !== 'other' && kind.measure !== 'level';
		var plot = new uPlot({
			width: Math.max(320, Math.min(700, window.innerWidth - 560)), height: 240,
			series: series,
			legend: { show: false },
			scales: { y: { range: function (u, min, max) {
				if (!fromZero)
					return [min, max];
				return [0, max > 0 ? max * 1.1 : 1];
			} } },
			axes: [{}, { label: kind.unit, size: 70, values: function (u, vals) {
				return vals.map(short);
			} }]
		}, [[]].concat(kind.items.map(function () { return []; })), plotEl);
		var rows = {};
		kind.items.forEach(function (it, i) {
			var tr = document.createElement('tr'), sw = cell(tr, '\u25a0', 'swatch');
			sw.style.color = COLORS[i % COLORS.length];
			cell(tr, it.label, 'place');
			rows[it.label] = { value: cell(tr, '', 'value'), marks: cell(tr, '', 'marks') };
			table.appendChild(tr);
		});
		kind.totals.forEach(function (t) {
			var tr = document.createElement('tr');
			tr.className = 'total ' + t.level;
			cell(tr, '', 'swatch');
			cell(tr, t.label, 'place');
			rows['total ' + t.label] = { value: cell(tr, '', 'value'), marks: cell(tr, '', 'marks') };
			table.appendChild(tr);
		});
		if (kind.no_total && kind.items.length > 1) {
			var tr = document.createElement('tr'), td = cell(tr, 'no total: ' + kind.no_total, 'why');
			tr.className = 'nototal';
			td.colSpan = 4;
			table.appendChild(tr);
		}
		return { el: el, plot: plot, rows: rows, n: kind.items.length };
	}

	function draw(range) {
		document.getElementById('sim').innerHTML = range.simulated ?
			'<span class="sim">SIMULATED: ' + range.platform + '</span>' : range.platform;
		range.kinds.forEach(function (kind) {
			var key = kind.name + ' ' + kind.unit + ' ' + kind.what, c = charts[key];
			var latest = {}, totals = {};
			if (c && c.n !== kind.items.length) { // other places (a reload): a new chart
				c.el.remove();
				c = null;
			}
			if (!c)
				c = charts[key] = makeChart(kind);
			c.plot.setData([range.t].concat(kind.items.map(function (it) { return it.values; })));
			kind.items.forEach(function (it) {
				var s = range.series[it.series], v = last(it.values);
				latest[it.label] = v;
				c.rows[it.label].value.textContent = fmt(v, kind.unit);
				c.rows[it.label].marks.textContent = marks(range, s ? last(s.flags) : 0,
									   it.running, null, it);
			});
			kind.totals.forEach(function (t) {
				var v = last(t.values), r = c.rows['total ' + t.label];
				totals[t.label] = v;
				r.value.textContent = fmt(v, kind.unit);
				r.marks.textContent = marks(range, last(t.flags), t.running, t, t);
			});
			c.el.setAttribute('data-series', JSON.stringify(latest));
			c.el.setAttribute('data-totals', JSON.stringify(totals));
			c.el.setAttribute('data-unit', kind.unit);
			c.el.setAttribute('data-what', kind.what);
			c.el.setAttribute('data-name', kind.name);
			c.el.setAttribute('data-y-min', c.plot.scales.y.min);
			c.el.setAttribute('data-t', last(range.t));
		});
	}

	function tick() {
		getJSON('/api/v1/range?seconds=' + WINDOW_S).then(function (range) {
			var t = last(range.t);
			draw(range);
			document.getElementById('status').setAttribute('data-t', t);
			document.getElementById('status').textContent = (t === null ? 'no sample yet' :
				'last sample ' + new Date(t * 1000).toLocaleString()) +
				', every ' + range.interval_s + ' s';
			setTimeout(tick, Math.max(250, range.interval_s * 1000));
		}).catch(function (e) {
			document.getElementById('status').textContent = 'no data: ' + e.message;
			setTimeout(tick, 2000);
		});
	}
	tick();
})();
