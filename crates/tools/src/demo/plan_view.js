// The demo's plan view: dots on the 1000 × 1000 map (y up, north at the top), the last
// seconds of each vehicle as a trail, updated from /feed (JSON, a few times a second).
'use strict';

const NS = 'http://www.w3.org/2000/svg';
const SIZE = 1000;
const TRAIL = 24;
const planView = { frames: 0, vehicles: {}, quarter: null };
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

function drawGround(quarter) {
  for (let v = 0; v <= SIZE; v += 100) {
    element('line', { x1: v, y1: 0, x2: v, y2: SIZE, class: 'grid' }, ground);
    element('line', { x1: 0, y1: v, x2: SIZE, y2: v, class: 'grid' }, ground);
    element('text', { x: v, y: SIZE + 26, class: 'axis', 'text-anchor': 'middle' }, ground).textContent = v;
    element('text', { x: -8, y: SIZE - v + 6, class: 'axis', 'text-anchor': 'end' }, ground).textContent = v;
  }
  element('rect', { x: 0, y: SIZE - quarter, width: quarter, height: quarter, class: 'quarter' }, ground);
  element('text', { x: 12, y: SIZE - quarter + 28, class: 'quarter-name' }, ground).textContent = "sw-watcher's region";
}

function kindOf(name) { return name.startsWith('Aircraft') ? 'air' : 'ground'; }

function show(name, x, y) {
  let vehicle = planView.vehicles[name];
  if (!vehicle) {
    const kind = kindOf(name);
    const group = element('g', { class: `vehicle ${kind}`, 'data-vehicle': name }, dots);
    element('circle', { r: 13 }, group);
    element('text', { x: 18, y: -12 }, group).textContent = name;
    const trail = element('polyline', { class: `trail ${kind}` }, trails);
    vehicle = planView.vehicles[name] = { group, trail, points: [] };
  }
  vehicle.points.push(`${x},${SIZE - y}`);
  if (vehicle.points.length > TRAIL) vehicle.points.shift();
  vehicle.trail.setAttribute('points', vehicle.points.join(' '));
  vehicle.group.setAttribute('transform', `translate(${x},${SIZE - y})`);
  vehicle.group.dataset.x = x;
  vehicle.group.dataset.y = y;
}

function apply(state) {
  planView.frames++;
  if (planView.quarter === null) { planView.quarter = state.quarter; drawGround(state.quarter); }
  for (const [name, x, y] of state.vehicles) show(name, x, y);
  const inside = state.vehicles.filter(([, x, y]) => x < state.quarter && y < state.quarter).length;
  document.getElementById('summary').textContent = `${state.vehicles.length} vehicles, ${inside} in the watcher's region · ${new Date().toLocaleTimeString()}`;
}

const status = document.getElementById('status');
const feed = new EventSource('feed');
feed.onopen = () => { status.textContent = 'live'; status.className = ''; };
feed.onerror = () => { status.textContent = 'the demo has stopped (or is unreachable)'; status.className = 'down'; };
feed.onmessage = (event) => apply(JSON.parse(event.data));
