// The monitor page: the topology drawn once (radial layout, cliques as shaded circles),
// then every frame from /events updates nodes (CPU pie, memory, status) and links (rates,
// queues). Rows are documented in crates/monitor/src/monitor/board.rs.
'use strict';

const NS = 'http://www.w3.org/2000/svg';
const STATUS = ['waiting', 'live', 'STALE', 'absent'];
const N = { index: 0, status: 1, cpuUser: 2, cpuSystem: 3, memory: 4, rateIn: 5, rateOut: 6, queue: 7, cutFederates: 8, cutObjects: 9, silentSince: 10, networkIn: 11, networkOut: 12, owned: 13, known: 14 };
const L = { index: 0, aToB: 1, bToA: 2, queueA: 3, queueB: 4, up: 5 };
const HISTORY_SPAN_MS = 5 * 60 * 1000;

// What the page knows; kept on window for operators' consoles and the browser test.
const monitor = { graph: null, nodes: [], links: [], frames: 0, lastFrameAt: 0, serverTime: 0, staleAt: {}, selected: null, elements: { nodes: [], links: [] } };
window.monitor = monitor;

function svgElement(name, attributes, parent) {
  const element = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes || {})) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

function radiusOf(node) { return node.kind === 'router' ? 26 : 14; }

// ---- layout -------------------------------------------------------------------------------

// Nodes and one hub per clique, linked: parent links as they are, clique members to their hub.
function adjacency(graph) {
  const count = graph.nodes.length + graph.cliques.length;
  const next = Array.from({ length: count }, () => []);
  for (const link of graph.links) {
    if (link.clique === null) { next[link.a].push(link.b); next[link.b].push(link.a); }
  }
  graph.cliques.forEach((clique, k) => {
    const hub = graph.nodes.length + k;
    for (const member of clique.members) { next[hub].push(member); next[member].push(hub); }
  });
  return next;
}

// A radial tree from the best-connected node: each node gets a slice of its parent's
// angle; rings grow so that nodes on one ring stay apart. Then overlaps are pushed apart.
function layout(graph) {
  const next = adjacency(graph);
  const count = next.length;
  const position = new Array(count);
  const depth = new Array(count).fill(-1);
  const slice = new Array(count);
  let root = 0;
  for (let i = 0; i < count; i++) if (next[i].length > next[root].length) root = i;
  const rings = [];
  const place = (start, offset) => {
    depth[start] = 0; slice[start] = [0, 2 * Math.PI]; position[start] = [offset, 0];
    const queue = [start];
    while (queue.length) {
      const node = queue.shift();
      const children = next[node].filter((c) => depth[c] < 0).sort((p, q) => p - q);
      const [from, to] = slice[node];
      children.forEach((child, i) => {
        depth[child] = depth[node] + 1;
        const width = (to - from) / children.length;
        slice[child] = [from + i * width, from + (i + 1) * width];
        (rings[depth[child]] = rings[depth[child]] || []).push(child);
        queue.push(child);
      });
    }
  };
  place(root, 0);
  // Disconnected pieces (not in a valid topology, but never hide a node): to the right.
  for (let i = 0; i < count; i++) if (depth[i] < 0) { rings.length = Math.max(rings.length, 1); place(i, 400 + 200 * i); }
  let radius = 0;
  rings.forEach((ring, d) => {
    if (!ring || d === 0) return;
    // Room between rings for a link's two label lines beside the nodes' names and figures.
    radius = Math.max(radius + 200, (ring.length * 46) / (2 * Math.PI));
    for (const node of ring) {
      const angle = (slice[node][0] + slice[node][1]) / 2;
      position[node] = [radius * Math.cos(angle), radius * Math.sin(angle)];
    }
  });
  separate(graph, position);
  return position;
}

// Push apart nodes closer than their radii plus a label's room, a bounded number of rounds.
function separate(graph, position) {
  const n = graph.nodes.length;
  const room = (i) => radiusOf(graph.nodes[i]) + 22;
  for (let round = 0; round < 60; round++) {
    let moved = false;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const dx = position[j][0] - position[i][0], dy = position[j][1] - position[i][1];
        const distance = Math.hypot(dx, dy) || 0.01;
        const wanted = room(i) + room(j);
        if (distance < wanted) {
          const push = (wanted - distance) / 2, ux = dx / distance, uy = dy / distance;
          position[i][0] -= ux * push; position[i][1] -= uy * push;
          position[j][0] += ux * push; position[j][1] += uy * push;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
}

// ---- drawing ------------------------------------------------------------------------------

function pieSlice(radius, from, to) {
  if (to - from >= 0.9999) return `M 0 ${-radius} A ${radius} ${radius} 0 1 1 0 ${radius} A ${radius} ${radius} 0 1 1 0 ${-radius} Z`;
  if (to - from <= 0) return '';
  const point = (f) => [radius * Math.sin(2 * Math.PI * f), -radius * Math.cos(2 * Math.PI * f)];
  const [x0, y0] = point(from), [x1, y1] = point(to);
  return `M 0 0 L ${x0.toFixed(2)} ${y0.toFixed(2)} A ${radius} ${radius} 0 ${to - from > 0.5 ? 1 : 0} 1 ${x1.toFixed(2)} ${y1.toFixed(2)} Z`;
}

function drawHulls(graph, position, layer) {
  graph.cliques.forEach((clique) => {
    const members = clique.members.map((m) => position[m]);
    const cx = members.reduce((s, p) => s + p[0], 0) / members.length;
    const cy = members.reduce((s, p) => s + p[1], 0) / members.length;
    const r = Math.max(...clique.members.map((m) => Math.hypot(position[m][0] - cx, position[m][1] - cy) + radiusOf(graph.nodes[m]))) + 16;
    const group = svgElement('g', { class: 'clique', 'data-clique': clique.name }, layer);
    svgElement('circle', { cx, cy, r, class: 'hull' }, group);
    svgElement('text', { x: cx, y: cy - r + 14, class: 'hull-name' }, group).textContent = `clique ${clique.name}`;
  });
}

function drawLinks(graph, position, layer) {
  graph.links.forEach((link, index) => {
    const [a, b] = [position[link.a], position[link.b]];
    const group = svgElement('g', { class: 'link', 'data-link': index, 'data-a': graph.nodes[link.a].name, 'data-b': graph.nodes[link.b].name }, layer);
    svgElement('line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1] }, group);
    // Text runs left to right along the link: "→" is from its left end to its right end.
    const leftIsA = a[0] <= b[0];
    let angle = Math.atan2(b[1] - a[1], b[0] - a[0]) * 180 / Math.PI;
    if (!leftIsA) angle += 180;
    const label = svgElement('text', { y: -4, class: 'rates' }, group);
    const queue = svgElement('text', { y: 10, class: 'queues' }, group);
    svgElement('title', {}, group);
    const view = { group, label, queue, leftIsA, a, b, angle, at: 0.5 };
    monitor.elements.links[index] = view;
    moveLinkLabel(view, 0.5);
  });
}

function moveLinkLabel(view, t) {
  const { a, b, angle } = view;
  const transform = `translate(${a[0] + t * (b[0] - a[0])},${a[1] + t * (b[1] - a[1])}) rotate(${angle})`;
  setAttr(view.label, 'transform', transform);
  setAttr(view.queue, 'transform', transform);
  view.at = t;
}

// Where along its link a label may sit (a share of the way from one end), middle first.
const LINK_SPOTS = [0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75];
const LINK_LABEL_HEIGHT = 28;

function boxOverlap(p, q) {
  const w = Math.min(p.x + p.w, q.x + q.w) - Math.max(p.x, q.x);
  const h = Math.min(p.y + p.h, q.y + q.h) - Math.max(p.y, q.y);
  return w > 0 && h > 0 ? w * h : 0;
}

// The upright box around a link's two label lines centred at share t of the link.
function linkLabelBox(view, t, width) {
  const { a, b } = view;
  const radians = view.angle * Math.PI / 180, cos = Math.abs(Math.cos(radians)), sin = Math.abs(Math.sin(radians));
  const [w, h] = [width * cos + LINK_LABEL_HEIGHT * sin, width * sin + LINK_LABEL_HEIGHT * cos];
  const [x, y] = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
  return { x: x - w / 2, y: y - h / 2, w, h };
}

// Slide each link's labels along the link to where they cover no node (its circle, name and
// figures) and no label placed before them; at the middle when nothing is in the way. On a
// big graph the labels are hidden but for the selected node's, and stay in the middle.
function placeLinkLabels() {
  const views = monitor.elements.links;
  if (views.length > 80) return;
  const obstacles = [];
  monitor.elements.nodes.forEach((node) => {
    for (const part of node.group.querySelectorAll('.ring, .name, .figures')) {
      const box = part.getBBox();
      const [x, y] = node.at;
      if (box.width > 0) obstacles.push({ x: x + box.x - 2, y: y + box.y - 2, w: box.width + 4, h: box.height + 4 });
    }
  });
  for (const view of views) {
    const width = Math.max(view.label.getComputedTextLength(), view.queue.getComputedTextLength()) + 6;
    const cost = (t) => obstacles.reduce((sum, o) => sum + boxOverlap(linkLabelBox(view, t, width), o), 0);
    let best = view.at, bestCost = cost(best);
    for (const t of LINK_SPOTS) {
      if (bestCost === 0) break;
      const c = cost(t);
      if (c < bestCost) { best = t; bestCost = c; }
    }
    moveLinkLabel(view, best);
    obstacles.push(linkLabelBox(view, best, width));
  }
}

function drawNodes(graph, position, layer) {
  graph.nodes.forEach((node, index) => {
    const r = radiusOf(node);
    const [x, y] = position[index];
    const group = svgElement('g', { class: `node ${node.kind} status-0`, 'data-node': node.name, 'data-index': index, transform: `translate(${x},${y})` }, layer);
    svgElement('circle', { r: r + 14, class: 'halo' }, group);
    svgElement('circle', { r, class: 'cpu-idle' }, group);
    const user = svgElement('path', { class: 'cpu-user' }, group);
    const system = svgElement('path', { class: 'cpu-system' }, group);
    svgElement('circle', { r, class: 'ring' }, group);
    svgElement('text', { y: r + 14, class: 'name' }, group).textContent = node.name;
    const figures = svgElement('text', { y: r + 26, class: 'figures' }, group);
    const cut = svgElement('text', { y: -r - 10, class: 'cut' }, group);
    const title = svgElement('title', {}, group);
    group.addEventListener('click', () => select(index));
    monitor.elements.nodes[index] = { group, user, system, figures, cut, title, r, at: [x, y] };
  });
}

function draw(graph) {
  const map = document.getElementById('map');
  const position = layout(graph);
  const xs = position.map((p) => p[0]), ys = position.map((p) => p[1]);
  const margin = 70;
  const [minX, minY] = [Math.min(...xs) - margin - 140, Math.min(...ys) - margin];
  const [width, height] = [Math.max(...xs) - minX + margin, Math.max(...ys) - minY + margin];
  map.setAttribute('viewBox', `${minX} ${minY} ${width} ${height}`);
  drawHulls(graph, position, svgElement('g', { id: 'hulls' }, map));
  drawLinks(graph, position, svgElement('g', { id: 'links' }, map));
  drawNodes(graph, position, svgElement('g', { id: 'nodes' }, map));
}

// ---- frames -------------------------------------------------------------------------------

// DOM writes only when the value changed: a 300-node frame touches thousands of them.
function setText(element, text) { if (element.textContent !== text) element.textContent = text; }
function setAttr(element, name, value) { if (element.getAttribute(name) !== String(value)) element.setAttribute(name, value); }

function fmt(value, digits = 0) {
  return value === null || value === undefined ? '–' : formatValue(Number(value.toFixed(digits)));
}

function kilobytes(bytes) { return bytes === null || bytes === undefined ? '–' : `${(bytes / 1024).toFixed(1)} KB`; }

function megabytes(bytes) { return bytes === null ? '–' : `${(bytes / 1048576).toFixed(1)} MB`; }

function cutText(row) {
  const federates = row[N.cutFederates];
  const objects = row[N.cutObjects];
  const objectText = objects === null ? 'objects unknown' : `${objects} objects`;
  return `cuts off ${federates} federate${federates === 1 ? '' : 's'}, ${objectText}`;
}

function updateNode(row) {
  const index = row[N.index];
  const before = monitor.nodes[index];
  monitor.nodes[index] = row;
  const node = monitor.graph.nodes[index];
  const view = monitor.elements.nodes[index];
  const status = row[N.status];
  setAttr(view.group, 'class', `node ${node.kind} status-${status}${monitor.selected === index ? ' selected' : ''}`);
  view.group.dataset.status = STATUS[status];
  const user = (row[N.cpuUser] || 0) / 100, system = (row[N.cpuSystem] || 0) / 100;
  setAttr(view.user, 'd', pieSlice(view.r, 0, Math.min(user, 1)));
  setAttr(view.system, 'd', pieSlice(view.r, Math.min(user, 1), Math.min(user + system, 1)));
  const cpu = row[N.cpuUser] === null ? '' : `CPU ${fmt(row[N.cpuUser] + row[N.cpuSystem], 1)}% · `;
  let figures = status === 1 ? `${cpu}${megabytes(row[N.memory])}`.replace(/ · –$/, '') : STATUS[status];
  if (figures === '–') figures = `in ${fmt(row[N.rateIn])} · out ${fmt(row[N.rateOut])} msg/s`;
  setText(view.figures, figures);
  setText(view.cut, `STALE — ${cutText(row)}`);
  view.group.dataset.cutFederates = row[N.cutFederates];
  view.group.dataset.cutObjects = row[N.cutObjects] === null ? 'unknown' : row[N.cutObjects];
  view.group.dataset.silentSince = row[N.silentSince] === null ? '' : row[N.silentSince];
  setText(view.title, `${node.name} (${node.kind}): ${STATUS[status]}\nCPU user ${fmt(row[N.cpuUser], 1)}%, system ${fmt(row[N.cpuSystem], 1)}%\nmemory ${megabytes(row[N.memory])}\nmessages in ${fmt(row[N.rateIn])}/s, out ${fmt(row[N.rateOut])}/s, queued ${fmt(row[N.queue])}\nits failure ${cutText(row)}`);
  if (status === 2 && (!before || before[N.status] !== 2)) {
    monitor.staleAt[node.name] = Date.now();
    view.group.dataset.staleAt = monitor.staleAt[node.name];
  } else if (status !== 2) {
    delete monitor.staleAt[node.name];
    delete view.group.dataset.staleAt;
  }
}

function updateLink(row) {
  const index = row[L.index];
  monitor.links[index] = row;
  const view = monitor.elements.links[index];
  const link = monitor.graph.links[index];
  const [rightward, leftward] = view.leftIsA ? [row[L.aToB], row[L.bToA]] : [row[L.bToA], row[L.aToB]];
  const [queueLeft, queueRight] = view.leftIsA ? [row[L.queueA], row[L.queueB]] : [row[L.queueB], row[L.queueA]];
  setText(view.label, `→ ${fmt(rightward)}/s   ← ${fmt(leftward)}/s`);
  const queued = (row[L.queueA] || 0) + (row[L.queueB] || 0);
  setText(view.queue, `q ${fmt(queueLeft)} | ${fmt(queueRight)}`);
  const busy = (row[L.aToB] || 0) + (row[L.bToA] || 0) > 0 || queued > 0;
  // On a big graph, labels only for the links of the clicked node (the rest: hover a link).
  const crowded = monitor.graph.links.length > 80;
  const quiet = crowded ? !(monitor.selected === link.a || monitor.selected === link.b) : false;
  setAttr(view.group, 'class', `link${busy ? ' busy' : ''}${row[L.up] === 0 ? ' down' : ''}${quiet ? ' quiet' : ''}`);
  view.group.dataset.rateAToB = row[L.aToB] === null ? '' : row[L.aToB];
  view.group.dataset.rateBToA = row[L.bToA] === null ? '' : row[L.bToA];
  const [a, b] = [monitor.graph.nodes[link.a].name, monitor.graph.nodes[link.b].name];
  setText(view.group.querySelector('title'), `${a} → ${b}: ${fmt(row[L.aToB])} msg/s, queued at ${a}: ${fmt(row[L.queueA])}\n${b} → ${a}: ${fmt(row[L.bToA])} msg/s, queued at ${b}: ${fmt(row[L.queueB])}\n${row[L.up] === null ? 'no end reports it' : row[L.up] ? 'up' : 'down'}`);
}

function updateSummary() {
  const counts = [0, 0, 0, 0];
  for (const row of monitor.nodes) if (row) counts[row[N.status]]++;
  const summary = document.getElementById('summary');
  summary.textContent = `${monitor.graph.nodes.length} processes, ${monitor.graph.links.length} links · ${counts[1]} live · ${counts[2]} stale · ${counts[0] + counts[3]} without figures`;
  summary.dataset.stale = counts[2];
  document.getElementById('clock').textContent = `figures of ${new Date(monitor.serverTime).toLocaleTimeString()}`;
}

function apply(frame) {
  const began = performance.now();
  monitor.frames++;
  monitor.lastFrameAt = Date.now();
  monitor.serverTime = frame.t;
  // How far behind the page is: composed on the server → applied here (one machine's clock).
  monitor.maxLagMs = Math.max(monitor.maxLagMs || 0, monitor.lastFrameAt - frame.t);
  for (const row of frame.n) updateNode(row);
  for (const row of frame.l) updateLink(row);
  placeLinkLabels();
  updateSummary();
  monitor.maxApplyMs = Math.max(monitor.maxApplyMs || 0, performance.now() - began);
  if (monitor.selected !== null && frame.n.some((row) => row[N.index] === monitor.selected)) showFigures(monitor.selected);
}

// ---- detail -------------------------------------------------------------------------------

function showFigures(index) {
  const row = monitor.nodes[index];
  const node = monitor.graph.nodes[index];
  if (!row) return;
  const status = document.getElementById('detail-status');
  status.textContent = `${node.kind}, ${STATUS[row[N.status]]}`;
  status.className = row[N.status] === 2 ? 'stale-text' : '';
  if (row[N.status] === 2 && row[N.silentSince]) status.textContent += ` since ${new Date(row[N.silentSince]).toLocaleTimeString()}`;
  const cut = monitor.graph.cut[index].map((f) => monitor.graph.nodes[f].name);
  const shown = cut.slice(0, 12).join(', ') + (cut.length > 12 ? `, … (${cut.length})` : '');
  const figures = [
    ['CPU user / system', `${fmt(row[N.cpuUser], 1)}% / ${fmt(row[N.cpuSystem], 1)}% of one core`],
    ['memory', megabytes(row[N.memory])],
    ['messages in / out', `${fmt(row[N.rateIn])} / ${fmt(row[N.rateOut])} per s`],
    ['queued', fmt(row[N.queue])],
    ['host network in / out', `${kilobytes(row[N.networkIn])} / ${kilobytes(row[N.networkOut])} per s`],
    ['objects owned / known', `${fmt(row[N.owned])} / ${fmt(row[N.known])}`],
    ['its failure', cutText(row)],
    ['federates cut off', shown || 'none'],
  ];
  const list = document.getElementById('detail-figures');
  list.replaceChildren();
  for (const [term, value] of figures) {
    const dt = document.createElement('dt'); dt.textContent = term; list.appendChild(dt);
    const dd = document.createElement('dd'); dd.textContent = value; list.appendChild(dd);
  }
}

async function showHistory(index) {
  const response = await fetch(`history/${index}`);
  if (!response.ok || monitor.selected !== index) return;
  const samples = await response.json();
  const now = monitor.serverTime || Date.now();
  // The last five minutes once there are; at least one minute before that.
  const first = samples.length ? samples[0].t : now;
  const span = Math.min(HISTORY_SPAN_MS, Math.max(60000, now - first));
  const series = (name, color, key, scale = 1) => ({ name, color, points: samples.map((s) => [s.t, s[key] === null ? null : s[key] * scale]) });
  const plots = document.getElementById('plots');
  plots.replaceChildren();
  drawPlot(plots, 'Messages per second', 'msg/s', [series('in', '#2a6cb0', 'rate_in'), series('out', '#e8871e', 'rate_out')], now, span);
  drawPlot(plots, 'Queue depth (frames queued toward its links)', 'frames', [series('queued', '#7a3fb0', 'queue')], now, span);
  drawPlot(plots, 'CPU, % of one core', '%', [series('user', '#e8871e', 'cpu_user'), series('system', '#3b6fd8', 'cpu_system')], now, span);
  drawPlot(plots, 'Resident memory', 'MB', [series('memory', '#2e9d49', 'memory_bytes', 1 / 1048576)], now, span);
}

function relabel() {
  for (const row of monitor.links) if (row) updateLink(row);
}

function select(index) {
  const previous = monitor.selected;
  monitor.selected = index;
  relabel();
  if (previous !== null) monitor.elements.nodes[previous].group.classList.remove('selected');
  monitor.elements.nodes[index].group.classList.add('selected');
  document.getElementById('detail').hidden = false;
  document.getElementById('detail-name').textContent = monitor.graph.nodes[index].name;
  showFigures(index);
  showHistory(index);
}

function closeDetail() {
  if (monitor.selected !== null) monitor.elements.nodes[monitor.selected].group.classList.remove('selected');
  monitor.selected = null;
  relabel();
  document.getElementById('detail').hidden = true;
}

// ---- federation panel ---------------------------------------------------------------------

// /federation.json, polled every second: the federation's members as its MOM reports them,
// and each member's logical time against wall time. Hidden when the monitor watches none.
const FEDERATE_COLORS = ['#2a6cb0', '#e8871e', '#2e9d49', '#7a3fb0', '#d7191c', '#0f8b8d', '#a05a2c', '#555'];
const STATE_TEXT = { joining: 'joining…', absent: 'not found', failed: 'not reachable', watching: 'watching' };

function colorOf(handle) { return FEDERATE_COLORS[handle % FEDERATE_COLORS.length]; }

function yesNo(value) { return value === null || value === undefined ? '–' : value ? 'yes' : 'no'; }

function showValue(value) { return value === null || value === undefined ? '–' : String(value); }

function federateRow(federate) {
  const t = federate.time, c = federate.counts;
  const row = document.createElement('tr');
  row.dataset.federate = federate.name || '';
  row.dataset.handle = federate.handle;
  row.dataset.time = t.logical_time === null ? '' : t.logical_time;
  const cells = [
    federate.name || `federate ${federate.handle}`, showValue(federate.type), showValue(federate.host), federate.handle,
    `${yesNo(t.regulating)} / ${yesNo(t.constrained)}`, showValue(t.logical_time), showValue(t.galt), showValue(t.lag),
    `${showValue(c.updates_sent)} / ${showValue(c.reflections_received)}`,
    `${showValue(c.interactions_sent)} / ${showValue(c.interactions_received)}`,
    `${showValue(c.instances_registered)} / ${showValue(c.instances_discovered)}`,
  ];
  const classes = ['name', 'type', 'host', 'handle', 'regcon', 'time', 'galt', 'lag', 'updates', 'interactions', 'objects'];
  cells.forEach((text, i) => {
    const cell = document.createElement('td');
    cell.className = classes[i];
    if (i === 0) {
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colorOf(federate.handle);
      cell.appendChild(swatch);
    }
    cell.appendChild(document.createTextNode(text));
    row.appendChild(cell);
  });
  return row;
}

function showFederation(panel) {
  monitor.federation = panel;
  const section = document.getElementById('federation');
  if (!panel.watching) { section.hidden = true; return; }
  section.hidden = false;
  setText(document.getElementById('federation-name'), panel.federation);
  const report = panel.report;
  const status = document.getElementById('federation-status');
  section.dataset.state = panel.state;
  let text = STATE_TEXT[panel.state] || panel.state;
  if (panel.message) text = `${text}: ${panel.message}`;
  else if (report) {
    const count = report.federates.length;
    text = `${count} federate${count === 1 ? '' : 's'} · ${report.time_implementation || 'time unknown'}${report.rti_version ? ` · ${report.rti_version}` : ''}`;
    if (report.not_answering.length) text += ` · not answering: ${report.not_answering.join(', ')}`;
    const objects = (report.objects_per_class || []).map((c) => `${c.class} ${c.objects}`);
    if (objects.length) text += ` · objects: ${objects.join(', ')}`;
    for (const point of report.synchronization_points || []) {
      const waiting = point.waiting_for.length ? point.waiting_for.join(', ') : 'no one';
      text += ` · synchronization point “${point.label}” waits for ${waiting}`;
    }
  }
  setText(status, text);
  status.className = panel.state === 'watching' ? '' : 'problem';
  const body = document.querySelector('#federates tbody');
  body.replaceChildren(...(report ? report.federates.map(federateRow) : []));
  const plot = document.getElementById('federation-plot');
  plot.replaceChildren();
  if (!panel.history.length) return;
  const now = panel.at || Date.now();
  const first = Math.min(...panel.history.map((line) => line.points[0][0]));
  const span = Math.min(HISTORY_SPAN_MS, Math.max(60000, now - first));
  const series = panel.history.map((line) => ({ name: line.name || `federate ${line.handle}`, color: colorOf(line.handle), points: line.points }));
  drawPlot(plot, 'Logical time against wall time', 'time', series, now, span);
}

async function pollFederation() {
  try {
    const response = await fetch('federation.json');
    if (!response.ok) return true;
    const panel = await response.json();
    showFederation(panel);
    return panel.watching;
  } catch (error) {
    return true; // The monitor may be restarting: keep asking.
  }
}

async function startFederation() {
  if (!(await pollFederation())) return;
  setInterval(pollFederation, 1000);
}

// ---- zoom and pan --------------------------------------------------------------------------

// The wheel zooms around the pointer; dragging the background pans.
function zoomable(map) {
  const box = () => map.viewBox.baseVal;
  const toMap = (event) => {
    const rect = map.getBoundingClientRect();
    const scale = Math.max(box().width / rect.width, box().height / rect.height);
    return [box().x + (event.clientX - rect.left) * scale, box().y + (event.clientY - rect.top) * scale, scale];
  };
  map.addEventListener('wheel', (event) => {
    event.preventDefault();
    const [x, y] = toMap(event);
    const factor = event.deltaY > 0 ? 1.2 : 1 / 1.2;
    const b = box();
    b.x = x - (x - b.x) * factor; b.y = y - (y - b.y) * factor;
    b.width *= factor; b.height *= factor;
  }, { passive: false });
  let dragging = null;
  map.addEventListener('pointerdown', (event) => {
    if (event.target.closest('.node')) return;
    dragging = [event.clientX, event.clientY, toMap(event)[2]];
  });
  window.addEventListener('pointermove', (event) => {
    if (!dragging) return;
    const [x, y, scale] = dragging;
    box().x -= (event.clientX - x) * scale; box().y -= (event.clientY - y) * scale;
    dragging = [event.clientX, event.clientY, scale];
  });
  window.addEventListener('pointerup', () => { dragging = null; });
}

// ---- start --------------------------------------------------------------------------------

function connect() {
  const connection = document.getElementById('connection');
  const events = new EventSource('events');
  events.onopen = () => { connection.textContent = 'live'; connection.className = 'connection up'; };
  events.onerror = () => { connection.textContent = 'monitor unreachable, retrying'; connection.className = 'connection down'; };
  events.onmessage = (event) => apply(JSON.parse(event.data));
  // The monitor itself may stop: say so rather than show old figures as current.
  setInterval(() => {
    if (monitor.lastFrameAt && Date.now() - monitor.lastFrameAt > 5000) {
      connection.textContent = `no figures for ${Math.round((Date.now() - monitor.lastFrameAt) / 1000)} s`;
      connection.className = 'connection down';
    }
    if (monitor.selected !== null) showHistory(monitor.selected);
  }, 1000);
}

async function start() {
  const response = await fetch('graph.json');
  monitor.graph = await response.json();
  document.getElementById('title').textContent = `Trellis monitor — ${monitor.graph.title}`;
  document.title = `Trellis monitor — ${monitor.graph.title}`;
  draw(monitor.graph);
  zoomable(document.getElementById('map'));
  document.getElementById('close').addEventListener('click', closeDetail);
  connect();
  startFederation();
}

start();
