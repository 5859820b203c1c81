// SPDX-License-Identifier: GPL-2.0-only
// pmumon report --html: the page's charts, from the JSON the report wrote into the page
// (#report-data): a uPlot chart per event or metric over wall time, a line per place and
// the machine's total in black (in a chart of its own above when it dwarfs the places: a
// total of 16 channels is 16 times one), a ring on each value in doubt, a gap where a value
// was not counted. Each chart mirrors what it drew into data-series (place -> {n: values
// drawn, mean}), which the browser test reads.
(function () {
	'use strict';
	var COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9',
		'#8C564B', '#7F7F7F', '#17becf', '#bcbd22'];
	var data = JSON.parse(document.getElementById('report-data').textContent);

	function byName() {
		var g = {}, order = [];
		data.series.forEach(function (s) {
			if (!g[s.name]) {
				g[s.name] = [];
				order.push(s.name);
			}
			g[s.name].push(s);
		});
		return order.map(function (n) { return [n, g[n]]; });
	}

	function summary(values) {
		var n = 0, sum = 0;
		values.forEach(function (v) {
			if (v !== null) {
				n++;
				sum += v;
			}
		});
		return { n: n, mean: n ? sum / n : null };
	}

	function top(values) {
		return values.reduce(function (m, v) { return v !== null && v > m ? v : m; }, 0);
	}

	function two(n) { return (n < 10 ? '0' : '') + n; }

	// the x axis as 24-hour time of day in the recording's zone (t is shifted to it)
	function hms(u, splits) {
		return splits.map(function (ts) {
			var d = new Date(ts * 1000);
			return two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' +
				two(d.getUTCSeconds());
		});
	}

	// from 0 for what is never below it, with room above the highest line
	function range(u, min, max) {
		return [min >= 0 ? 0 : min, max > 0 ? max * 1.08 : max < 0 ? max * 0.92 : 1];
	}

	function chart(name, title, list) {
		var el = document.createElement('div'), h = document.createElement('h2');
		var q = document.createElement('div'), plotEl = document.createElement('div');
		var series = [{}], values = [data.t], drawn = {}, doubts = [];
		el.className = 'chart';
		h.textContent = title;
		q.className = 'quality';
		el.appendChild(h);
		el.appendChild(plotEl);
		el.appendChild(q);
		document.getElementById('charts').appendChild(el);
		list.forEach(function (s, i) {
			var color = s.total ? '#000000' : COLORS[i % COLORS.length];
			series.push({ label: s.place, stroke: color, width: s.total ? 2.5 : 1.5,
				spanGaps: false, points: { show: false } });
			values.push(s.values);
			drawn[s.place] = summary(s.values);
			if (s.doubt.length) {
				var marks = s.values.map(function () { return null; });
				s.doubt.forEach(function (k) { marks[k] = s.values[k]; });
				series.push({ label: s.place + ' in doubt', stroke: color,
					paths: function () { return null; },
					points: { show: true, size: 8, width: 1.5, fill: '#fff' } });
				values.push(marks);
				doubts.push(s.place + ': ' + s.doubt.length + ' in doubt (' + s.quality + ')');
			}
		});
		new uPlot({
			width: Math.min(1100, Math.max(600, window.innerWidth - 80)), height: 260,
			series: series,
			scales: { x: { time: data.wall }, y: { range: range } },
			tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'); },
			axes: [{ label: data.wall ? 'time (' + data.zone + ')' : 'seconds into the run',
				values: data.wall ? hms : undefined },
				{ label: list[0].unit || '', size: 80 }]
		}, values, plotEl);
		q.textContent = doubts.join('; ');
		el.setAttribute('data-series', JSON.stringify(drawn));
		el.setAttribute('data-name', name);
	}

	byName().forEach(function (g) {
		var name = g[0], list = g[1], unit = list[0].unit ? ' (' + list[0].unit + ')' : '';
		var places = list.filter(function (s) { return !s.total; });
		var totals = list.filter(function (s) { return s.total; });
		var most = Math.max.apply(null, places.map(function (s) { return top(s.values); }));
		if (totals.length && places.length &&
		    totals.some(function (s) { return top(s.values) > 2 * most; })) {
			chart(name + ' (total)', name + unit + ': the machine\'s total', totals);
			chart(name, name + unit + ': per place', places);
		} else {
			chart(name, name + unit, list);
		}
	});
})();
