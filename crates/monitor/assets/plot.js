// Small time-series plots in SVG: one panel per quantity, the last minutes on the x axis,
// one polyline per series, a gap where a sample is missing (null or a hole in time).
'use strict';

const PLOT_NS = 'http://www.w3.org/2000/svg';

function plotElement(name, attributes, parent) {
  const element = document.createElementNS(PLOT_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

function formatValue(value) {
  if (value === null || value === undefined) return '–';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e9) return (value / 1e9).toFixed(1) + 'G';
  if (magnitude >= 1e6) return (value / 1e6).toFixed(1) + 'M';
  if (magnitude >= 1e4) return (value / 1e3).toFixed(1) + 'k';
  if (magnitude >= 100 || Number.isInteger(value)) return value.toFixed(0);
  return value.toFixed(1);
}

// series: [{name, color, points: [[unixMs, value|null], …]}]; the x axis ends at `now` and
// spans `spanMs`.
function drawPlot(container, title, unit, series, now, spanMs) {
  const width = 390, height = 120, left = 44, right = 8, top = 16, bottom = 18;
  const box = document.createElement('div');
  box.className = 'plot';
  const heading = document.createElement('h3');
  heading.textContent = title;
  box.appendChild(heading);
  const svg = plotElement('svg', { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none' }, box);
  let max = 0;
  for (const s of series) for (const [, v] of s.points) if (v !== null && v > max) max = v;
  if (max <= 0) max = 1;
  const x = (t) => left + (width - left - right) * (1 - (now - t) / spanMs);
  const y = (v) => top + (height - top - bottom) * (1 - v / max);
  for (const fraction of [0, 0.5, 1]) {
    const gy = y(max * fraction);
    plotElement('line', { x1: left, x2: width - right, y1: gy, y2: gy, class: 'grid' }, svg);
    const label = plotElement('text', { x: left - 4, y: gy + 3, 'text-anchor': 'end', class: 'axis' }, svg);
    label.textContent = formatValue(max * fraction);
  }
  const minutes = spanMs / 60000;
  const start = plotElement('text', { x: left, y: height - 4, class: 'axis' }, svg);
  start.textContent = minutes >= 1.5 ? `−${minutes.toFixed(0)} min` : `−${(spanMs / 1000).toFixed(0)} s`;
  const end = plotElement('text', { x: width - right, y: height - 4, 'text-anchor': 'end', class: 'axis' }, svg);
  end.textContent = 'now';
  const unitLabel = plotElement('text', { x: 2, y: 10, class: 'axis' }, svg);
  unitLabel.textContent = unit;
  series.forEach((s, i) => {
    let run = [];
    let previous = null;
    const flush = () => {
      if (run.length > 1) plotElement('polyline', { points: run.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 1.6 }, svg);
      if (run.length === 1) plotElement('circle', { cx: run[0].split(',')[0], cy: run[0].split(',')[1], r: 1.5, fill: s.color }, svg);
      run = [];
    };
    for (const [t, v] of s.points) {
      if (now - t > spanMs) continue;
      if (v === null || (previous !== null && t - previous > 2500)) flush();
      if (v !== null) run.push(`${x(t).toFixed(1)},${y(v).toFixed(1)}`);
      previous = t;
    }
    flush();
    const key = plotElement('text', { x: left + 6 + i * 120, y: 11, class: 'key', fill: s.color }, svg);
    const last = s.points.length ? s.points[s.points.length - 1][1] : null;
    key.textContent = `${s.name}: ${formatValue(last)}`;
  });
  container.appendChild(box);
}
