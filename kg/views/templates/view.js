/* kg viz: the page's behaviour. Corpus text is only ever set with textContent
   (or given to vis-network as a text tooltip), never parsed as HTML. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("kg-data").textContent);
  // A map's details (sentences, papers, names, trends, and the strings they refer to by number) come
  // in a block after the scripts: nothing drawn needs them, so the browser reads them after the first
  // drawing. Until then each item has empty ones; whatever shows details asks for them first.
  var details = null;
  function withDetails() {
    var block = document.getElementById("kg-details");
    if (details || !block) { return; }
    details = JSON.parse(block.textContent);
    data.nodes.forEach(function (n, i) { Object.assign(n, details.nodes[i]); });
    data.edges.forEach(function (e, i) { Object.assign(e, details.edges[i]); });
  }
  function text(value) { return typeof value === "number" ? details.texts[value] : value; }
  function inflate(pairs) { return pairs.map(function (pair) { return [text(pair[0]), text(pair[1])]; }); }
  if (data.map) {  // a map leaves out what most of its items share
    var map = data.map, groupOf = new Map(map.groups.map(function (g) { return [g.number, g]; }));
    data.nodes.forEach(function (n) {
      var g = groupOf.get(n.kgGroup), fill = g ? g.colour : map.otherColour;
      n.color = { background: fill, border: g ? g.border : map.otherBorder, highlight: { background: fill, border: "#000000" } };
      n.kgEvidence = []; n.kgFacts = []; n.kgNames = [n.kgLabel]; n.kgTrend = []; n.kgPaperList = []; n.kgRelated = [];
    });
    data.edges.forEach(function (e, i) {
      e.id = "e" + i;
      e.from = data.nodes[e.from].id; e.to = data.nodes[e.to].id;  // by number in the data
      e.kgTyped = e.kgTyped || false; e.kgRelation = e.kgRelation || map.link; e.arrows = e.arrows || "";
      e.kgMore = e.kgMore || 0; e.kgEvidence = []; e.kgFacts = [];
      if (e.kgTyped) { e.color = map.typedColour; }
    });
    document.addEventListener("DOMContentLoaded", withDetails);
  }
  var byId = new Map();
  var hiddenTypes = new Set();

  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }
  function labelOf(id) { var n = byId.get(id); return n ? n.kgLabel : id; }
  function describe(n) {
    if (n.kgType === "Paper") { return "Paper \u00b7 click for its authors and claims"; }
    return n.kgType + (n.kgPapers ? " \u00b7 " + plural(n.kgPapers, "paper") : "");
  }
  function quoted(pair) { return "\u201c" + pair[1] + "\u201d\n    \u2014 " + pair[0]; }
  function relation(e) { return e.arrows ? " \u2014" + e.kgRelation + "\u2192 " : " \u2014" + e.kgRelation + "\u2014 "; }
  function evidenceLines(item) {
    var lines = inflate(item.kgEvidence).map(quoted);
    if (item.kgMore) { lines.push("\u2026 and " + item.kgMore + " more"); }
    return lines;
  }

  data.nodes.forEach(function (n) {
    n.kgType = n.kgType || n.group;  // maps colour by community, so their nodes have no vis group
    byId.set(n.id, n);
  });
  if (!window.kgMap) {  // a map writes its tooltips when they are first hovered
    data.nodes.forEach(function (n) { n.title = [n.kgLabel, describe(n)].concat(evidenceLines(n), n.kgFacts).join("\n"); });
    data.edges.forEach(function (e) { e.title = [labelOf(e.from) + relation(e) + labelOf(e.to)].concat(evidenceLines(e), e.kgFacts || []).join("\n"); });
  }

  // vis copies every field of every item it is given: it gets what it draws, and the page keeps
  // the rest (sentences, papers, relations) in data.nodes and data.edges.
  var HEAVY = ["kgEvidence", "kgFacts", "kgNames", "kgPaperList", "kgRelated", "kgTrend"];
  function drawable(item) {
    var out = {};
    Object.keys(item).forEach(function (key) { if (HEAVY.indexOf(key) === -1) { out[key] = item[key]; } });
    return out;
  }
  var edgeById = new Map(data.edges.map(function (e) { return [e.id, e]; }));
  var nodes = new vis.DataSet(data.nodes.map(drawable));
  var edges = new vis.DataSet(data.edges.map(drawable));
  var container = document.getElementById("network");
  var network = new vis.Network(container, { nodes: nodes, edges: edges }, data.options);
  // A map's script (map.js, window.kgMap) adds filters, a label layer and its own node panel through this object.
  var view = window.kgView = {
    network: network, nodes: nodes, edges: edges, drawn: false, drawnAt: null, data: data, byId: byId, edgeById: edgeById, filters: []
  };
  // Fit before anything is drawn (the canvas takes its size first), so the first drawing is the page.
  network.setSize("100%", "100%");
  network.fit({ animation: false, maxZoomLevel: 1.5 });
  function firstDrawing() {
    network.off("afterDrawing", firstDrawing);
    view.drawn = true;
    view.drawnAt = performance.now();
    document.body.setAttribute("data-drawn", "yes");
  }

  // The info panel.
  var info = document.getElementById("info");
  function clear(element) { while (element.firstChild) { element.removeChild(element.firstChild); } }
  function add(parent, tag, text, className) {
    var element = document.createElement(tag);
    if (text !== undefined && text !== null) { element.textContent = String(text); }
    if (className) { element.className = className; }
    parent.appendChild(element);
    return element;
  }
  function addEvidence(item) {
    inflate(item.kgEvidence).forEach(function (pair) {
      var quote = add(info, "blockquote", pair[1]);
      add(quote, "cite", "\u2014 " + pair[0]);
    });
    if (item.kgMore) { add(info, "p", "\u2026 and " + item.kgMore + " more", "meta"); }
  }
  view.add = add;
  view.withDetails = withDetails;
  view.text = text;
  view.inflate = inflate;
  view.clear = clear;
  view.info = info;
  view.addEvidence = addEvidence;
  function showNode(id) {
    withDetails();
    var n = byId.get(id);
    if (!n) { return; }
    clear(info);
    var paper = data.papers[id];
    add(info, "h3", paper ? paper.title : n.kgLabel);
    add(info, "p", n.kgType === "Paper" ? "Paper" : describe(n), "meta");
    if (paper) {
      if (paper.authors.length) { add(info, "p", paper.authors.join(", ")); }
      var where = paper.venue && paper.year && paper.venue.indexOf(paper.year) !== -1 ? paper.venue : [paper.venue, paper.year].filter(Boolean).join(", ");
      if (where) { add(info, "p", where, "meta"); }
      add(info, "h3", paper.claims.length ? "Claims" : "No claims found in its abstract");
      var list = add(info, "ol");
      paper.claims.forEach(function (claim) { add(list, "li", claim); });
    }
    addEvidence(n);
    if (n.kgFacts.length) {
      var facts = add(info, "ul");
      n.kgFacts.forEach(function (fact) { add(facts, "li", fact); });
    }
    add(info, "p", id, "iri");
  }
  function showEdge(id) {
    withDetails();
    var e = edgeById.get(id);
    if (!e) { return; }
    clear(info);
    add(info, "h3", labelOf(e.from) + relation(e) + labelOf(e.to));
    addEvidence(e);
    if (e.kgFacts && e.kgFacts.length) {
      var facts = add(info, "ul");
      e.kgFacts.forEach(function (fact) { add(facts, "li", fact); });
    }
  }
  view.showNode = showNode;
  view.showEdge = showEdge;
  network.on("click", function (params) {
    if (params.nodes.length) { view.showNode(params.nodes[0]); }
    else if (params.edges.length) { showEdge(params.edges[0]); }
  });

  // Find a node by (part of) its name.
  var search = document.getElementById("search");
  var matches = document.getElementById("matches");
  function isShown(n) {
    return !hiddenTypes.has(n.kgType) && view.filters.every(function (keep) { return keep(n); });
  }
  view.isShown = isShown;
  function choose(id) {
    if (!isShown(byId.get(id))) { return; }
    network.selectNodes([id]);
    network.focus(id, { scale: Math.max(network.getScale(), 1.2), animation: false });
    view.showNode(id);
  }
  function names(n) { return n.kgNames && n.kgNames.length ? n.kgNames : [n.kgLabel]; }
  function matchAt(n, wanted) {
    var best = -1;
    names(n).forEach(function (name) {
      var at = name.toLowerCase().indexOf(wanted);
      if (at !== -1 && (best === -1 || at < best)) { best = at; }
    });
    return best;
  }
  search.addEventListener("input", function () {
    withDetails();
    clear(matches);
    var wanted = search.value.trim().toLowerCase();
    if (!wanted) { return; }
    var found = data.nodes.filter(function (n) { return isShown(n) && matchAt(n, wanted) !== -1; });
    found.sort(function (a, b) {
      var sa = matchAt(a, wanted) === 0 ? 0 : 1;
      var sb = matchAt(b, wanted) === 0 ? 0 : 1;
      return sa - sb || b.value - a.value || (a.kgLabel < b.kgLabel ? -1 : 1);
    });
    found.slice(0, 20).forEach(function (n) {
      var item = add(matches, "li", n.kgLabel);
      add(item, "span", n.kgType, "kind");
      item.tabIndex = 0;
      item.addEventListener("click", function () { choose(n.id); });
      item.addEventListener("keydown", function (event) { if (event.key === "Enter") { choose(n.id); } });
    });
  });
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && matches.firstChild) { matches.firstChild.click(); }
  });

  // Show or hide nodes: by type here, by the map's filters too.
  view.applyFilters = function () {
    withDetails();
    var shown = new Set();
    nodes.update(data.nodes.map(function (n) {
      var keep = isShown(n);
      if (keep) { shown.add(n.id); }
      n.kgHidden = !keep;
      return { id: n.id, hidden: !keep };
    }));
    edges.update(data.edges.map(function (e) { return { id: e.id, hidden: !(shown.has(e.from) && shown.has(e.to)) }; }));
  };
  document.querySelectorAll("#filter input[type=checkbox]").forEach(function (box) {
    box.addEventListener("change", function () {
      var type = box.getAttribute("data-type");
      if (box.checked) { hiddenTypes.delete(type); } else { hiddenTypes.add(type); }
      view.applyFilters();
    });
  });
  document.getElementById("fit").addEventListener("click", function () { network.fit({ animation: false, maxZoomLevel: 1.5 }); });
  if (window.kgMap) { window.kgMap.attach(view); }
  // After the map's label layer, so the first drawing counts as drawn once its labels are.
  network.on("afterDrawing", firstDrawing);
  network.redraw();
})();
