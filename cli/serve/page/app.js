// SPDX-License-Identifier: GPL-2.0-only
// pmumon serve's live page: charts of /api/v1/range, refreshed every interval.
// Each chart mirrors its series' latest values into its data-series attribute
// (place -> value, null when not counted), which the browser test reads.
(function () {
	'use strict';
	var WINDOW_S = 600;
	var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
		'#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
	var charts = {};

	function getJSON(url) {
		return fetch(url).then(function (r) {
			if (!r.ok)
				throw new Error(url + ': ' + r.status);
			return r.json();
		});
	}

	// the metrics' series if there are any, else the events', by name
	function groups(range) {
		var metric = range.series.some(function (s) { return s.metric; });
		var g = {}, order = [];
		range.series.forEach(function (s) {
			if (s.metric !== metric)
				return;
			if (!g[s.name]) {
				g[s.name] = [];
				order.push(s.name);
			}
			g[s.name].push(s);
		});
		return order.map(function (n) { return [n, g[n]]; });
	}

	function doubts(range, list) {
		var out = [];
		list.forEach(function (s) {
			var f = s.flags.length ? s.flags[s.flags.length - 1] : 0, names = [];
			Object.keys(range.flag_names).forEach(function (bit) {
				var name = range.flag_names[bit];
				if ((f & Number(bit)) && name !== 'metric' && name !== 'snapshot')
					names.push(name);
			});
			if (names.length)
				out.push(s.place + ': ' + names.join(', '));
		});
		return out.join('; ');
	}

	function makeChart(name, list) {
		var el = document.createElement('div'), h = document.createElement('h2');
		var q = document.createElement('div'), plotEl = document.createElement('div');
		el.className = 'chart';
		h.textContent = name + (list[0].unit ? ' (' + list[0].unit + ')' : '');
		q.className = 'quality';
		el.appendChild(h);
		el.appendChild(plotEl);
		el.appendChild(q);
		document.getElementById('charts').appendChild(el);
		var series = [{}].concat(list.map(function (s, i) {
			return { label: s.place, stroke: COLORS[i % COLORS.length], spanGaps: false };
		}));
		var plot = new uPlot({
			width: Math.min(1000, window.innerWidth - 60), height: 260, series: series,
			axes: [{}, { label: list[0].unit || 'per interval', size: 70 }]
		}, [[]].concat(list.map(function () { return []; })), plotEl);
		return { el: el, quality: q, plot: plot };
	}

	function draw(range) {
		document.getElementById('sim').innerHTML = range.simulated ?
			'<span class="sim">SIMULATED: ' + range.platform + '</span>' : range.platform;
		groups(range).forEach(function (g) {
			var name = g[0], list = g[1], c = charts[name], latest = {};
			if (!c)
				c = charts[name] = makeChart(name, list);
			c.plot.setData([range.t].concat(list.map(function (s) { return s.values; })));
			list.forEach(function (s) {
				latest[s.place] = s.values.length ? s.values[s.values.length - 1] : null;
			});
			c.el.setAttribute('data-series', JSON.stringify(latest));
			c.el.setAttribute('data-name', name);
			c.quality.textContent = doubts(range, list);
		});
	}

	function tick() {
		getJSON('/api/v1/range?seconds=' + WINDOW_S).then(function (range) {
			draw(range);
			document.getElementById('status').textContent = 'updated ' +
				new Date().toLocaleTimeString() + ', every ' + range.interval_s + ' s';
			setTimeout(tick, Math.max(250, range.interval_s * 1000));
		}).catch(function (e) {
			document.getElementById('status').textContent = 'no data: ' + e.message;
			setTimeout(tick, 2000);
		});
	}
	tick();
})();
