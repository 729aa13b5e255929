// The demo's plan view: dots on the 1000 × 1000 map (y up, north at the top), the last
// seconds of each vehicle as a trail, updated from /feed (JSON, a few times a second).
// Each vehicle's label goes where it covers no other label or dot and stays inside the
// map; time-stepped, the logical clocks are shown above the map.
'use strict';

const NS = 'http://www.w3.org/2000/svg';
const SIZE = 1000;
const TRAIL = 24;
const DOT = 13;
const planView = { frames: 0, vehicles: {}, quarter: null, time: null };
window.planView = planView;

function element(name, attributes, parent) {
  const made = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, value);
  if (parent) parent.appendChild(made);
  return made;
}

const map = document.getElementById('map');
const ground = element('g', {}, map);
const trails = element('g', {}, map);
const dots = element('g', {}, map);
const labels = element('g', {}, map);
// Boxes no label may cover besides the dots: the watcher's region name.
const fixed = [];

function drawGround(quarter) {
  for (let v = 0; v <= SIZE; v += 100) {
    element('line', { x1: v, y1: 0, x2: v, y2: SIZE, class: 'grid' }, ground);
    element('line', { x1: 0, y1: v, x2: SIZE, y2: v, class: 'grid' }, ground);
    element('text', { x: v, y: SIZE + 26, class: 'axis', 'text-anchor': 'middle' }, ground).textContent = v;
    element('text', { x: -8, y: SIZE - v + 6, class: 'axis', 'text-anchor': 'end' }, ground).textContent = v;
  }
  element('rect', { x: 0, y: SIZE - quarter, width: quarter, height: quarter, class: 'quarter' }, ground);
  const name = element('text', { x: 12, y: SIZE - quarter + 28, class: 'quarter-name' }, ground);
  name.textContent = "sw-watcher's region";
  const box = name.getBBox();
  fixed.push({ x: box.x, y: box.y, w: box.width, h: box.height });
}

function kindOf(name) { return name.startsWith('Aircraft') ? 'air' : 'ground'; }

function show(name, x, y) {
  let vehicle = planView.vehicles[name];
  if (!vehicle) {
    const kind = kindOf(name);
    const group = element('g', { class: `vehicle ${kind}`, 'data-vehicle': name }, dots);
    element('circle', { r: DOT }, group);
    const label = element('text', { class: `vehicle-label ${kind}`, 'data-label': name }, labels);
    label.textContent = name;
    const trail = element('polyline', { class: `trail ${kind}` }, trails);
    vehicle = planView.vehicles[name] = { group, label, trail, points: [], spot: 0, box: null };
  }
  vehicle.points.push(`${x},${SIZE - y}`);
  if (vehicle.points.length > TRAIL) vehicle.points.shift();
  vehicle.trail.setAttribute('points', vehicle.points.join(' '));
  vehicle.group.setAttribute('transform', `translate(${x},${SIZE - y})`);
  vehicle.group.dataset.x = x;
  vehicle.group.dataset.y = y;
  vehicle.at = [x, SIZE - y];
}

// Where a label may sit around its dot, for a label w wide and h high: the offset of its
// box's top-left corner from the dot. Above right of the dot first.
const SPOTS = [
  (w, h) => [DOT + 4, -h - 2], (w, h) => [DOT + 4, 2], (w, h) => [-DOT - 4 - w, -h - 2],
  (w, h) => [-DOT - 4 - w, 2], (w, h) => [-w / 2, -DOT - 4 - h], (w, h) => [-w / 2, DOT + 4],
  (w, h) => [DOT + 4, -h / 2], (w, h) => [-DOT - 4 - w, -h / 2],
];

function overlap(a, b) {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

// How much a label box at `box` covers what it must not: labels already placed, the dots,
// the region's name, and the outside of the map (counted heavily: it would be cut off).
function cost(box, placed, dotBoxes) {
  const inside = { x: Math.max(box.x, 0), y: Math.max(box.y, 0) };
  const insideW = Math.min(box.x + box.w, SIZE) - inside.x, insideH = Math.min(box.y + box.h, SIZE) - inside.y;
  let total = 10 * (box.w * box.h - Math.max(insideW, 0) * Math.max(insideH, 0));
  for (const other of placed) total += 4 * overlap(box, other);
  for (const other of fixed) total += 2 * overlap(box, other);
  for (const other of dotBoxes) total += overlap(box, other);
  return total;
}

// Place every label greedily, vehicles in name order; a label keeps last frame's spot
// while it is free, so labels do not jump about. Large fleets skip the pairwise checks.
function placeLabels() {
  const vehicles = Object.keys(planView.vehicles).sort().map((n) => planView.vehicles[n]);
  const crowded = vehicles.length > 200;
  const dotBoxes = crowded ? [] : vehicles.map(({ at: [x, y] }) => ({ x: x - DOT, y: y - DOT, w: 2 * DOT, h: 2 * DOT }));
  const placed = [];
  for (const vehicle of vehicles) {
    if (!vehicle.size) {
      const b = vehicle.label.getBBox();
      vehicle.size = { w: b.width, h: b.height, baseline: -b.y };
    }
    const { w, h } = vehicle.size;
    const [x, y] = vehicle.at;
    const boxAt = (spot) => { const [dx, dy] = SPOTS[spot](w, h); return { x: x + dx, y: y + dy, w, h }; };
    let best = vehicle.spot, bestCost = cost(boxAt(best), placed, dotBoxes);
    for (let spot = 0; spot < SPOTS.length && bestCost > 0; spot++) {
      const c = cost(boxAt(spot), placed, dotBoxes);
      if (c < bestCost) { best = spot; bestCost = c; }
    }
    const box = boxAt(best);
    vehicle.spot = best;
    vehicle.box = box;
    placed.push(box);
    vehicle.label.setAttribute('x', box.x);
    vehicle.label.setAttribute('y', box.y + vehicle.size.baseline);
  }
}

function showTime(time) {
  const clock = document.getElementById('clock');
  planView.time = time;
  if (!time) {
    clock.className = 'untimed';
    clock.textContent = 'Not time-stepped: the vehicles move by the wall clock (trellis demo --time-stepped shows logical time here).';
    return;
  }
  clock.className = 'timed';
  const seconds = (step) => (step * time.step_seconds).toFixed(1);
  clock.replaceChildren();
  const head = document.createElement('strong');
  head.id = 'federation-time';
  head.dataset.time = time.federation;
  head.textContent = time.grants === 0
    ? 'Logical time: waiting for the federation to synchronize at ReadyToRun'
    : `Federation time ${time.federation} (${seconds(time.federation)} s simulated, the least granted time)`;
  clock.appendChild(head);
  for (const [name, granted] of time.federates) {
    const chip = document.createElement('span');
    chip.className = 'federate-time';
    chip.dataset.federate = name;
    chip.dataset.time = granted;
    chip.textContent = `${name}: ${granted}`;
    clock.appendChild(chip);
  }
}

function apply(state) {
  planView.frames++;
  if (planView.quarter === null) { planView.quarter = state.quarter; drawGround(state.quarter); }
  for (const [name, x, y] of state.vehicles) show(name, x, y);
  placeLabels();
  showTime(state.time);
  const inside = state.vehicles.filter(([, x, y]) => x < state.quarter && y < state.quarter).length;
  document.getElementById('summary').textContent = `${state.vehicles.length} vehicles, ${inside} in the watcher's region · ${new Date().toLocaleTimeString()}`;
}

const status = document.getElementById('status');
const feed = new EventSource('feed');
feed.onopen = () => { status.textContent = 'live'; status.className = ''; };
feed.onerror = () => { status.textContent = 'the demo has stopped (or is unreachable)'; status.className = 'down'; };
feed.onmessage = (event) => apply(JSON.parse(event.data));
