/* kg viz: the page's behaviour. Corpus text is only ever set with textContent
   (or given to vis-network as a text tooltip), never parsed as HTML. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("kg-data").textContent);
  var byId = new Map();
  var hiddenTypes = new Set();

  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }
  function labelOf(id) { var n = byId.get(id); return n ? n.kgLabel : id; }
  function describe(n) {
    if (n.group === "Paper") { return "Paper \u00b7 click for its authors and claims"; }
    return n.group + (n.kgPapers ? " \u00b7 " + plural(n.kgPapers, "paper") : "");
  }
  function quoted(pair) { return "\u201c" + pair[1] + "\u201d\n    \u2014 " + pair[0]; }
  function relation(e) { return e.arrows ? " \u2014" + e.kgRelation + "\u2192 " : " \u2014" + e.kgRelation + "\u2014 "; }
  function evidenceLines(item) {
    var lines = item.kgEvidence.map(quoted);
    if (item.kgMore) { lines.push("\u2026 and " + item.kgMore + " more"); }
    return lines;
  }

  data.nodes.forEach(function (n) {
    byId.set(n.id, n);
    n.title = [n.kgLabel, describe(n)].concat(evidenceLines(n), n.kgFacts).join("\n");
  });
  data.edges.forEach(function (e) {
    e.title = [labelOf(e.from) + relation(e) + labelOf(e.to)].concat(evidenceLines(e)).join("\n");
  });

  var nodes = new vis.DataSet(data.nodes);
  var edges = new vis.DataSet(data.edges);
  var container = document.getElementById("network");
  var network = new vis.Network(container, { nodes: nodes, edges: edges }, data.options);
  var view = window.kgView = { network: network, nodes: nodes, edges: edges, drawn: false, drawnAt: null };
  // The first drawing sizes the canvas; then fit the graph to it, and the next drawing is the page.
  var fitted = false;
  function firstDrawings() {
    if (!fitted) {
      fitted = true;
      network.fit({ animation: false, maxZoomLevel: 1.5 });
      network.redraw();
      return;
    }
    network.off("afterDrawing", firstDrawings);
    view.drawn = true;
    view.drawnAt = performance.now();
    document.body.setAttribute("data-drawn", "yes");
  }
  network.on("afterDrawing", firstDrawings);

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
    item.kgEvidence.forEach(function (pair) {
      var quote = add(info, "blockquote", pair[1]);
      add(quote, "cite", "\u2014 " + pair[0]);
    });
    if (item.kgMore) { add(info, "p", "\u2026 and " + item.kgMore + " more", "meta"); }
  }
  function showNode(id) {
    var n = byId.get(id);
    if (!n) { return; }
    clear(info);
    var paper = data.papers[id];
    add(info, "h3", paper ? paper.title : n.kgLabel);
    add(info, "p", n.group === "Paper" ? "Paper" : describe(n), "meta");
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
    var e = edges.get(id);
    if (!e) { return; }
    clear(info);
    add(info, "h3", labelOf(e.from) + relation(e) + labelOf(e.to));
    addEvidence(e);
  }
  network.on("click", function (params) {
    if (params.nodes.length) { showNode(params.nodes[0]); }
    else if (params.edges.length) { showEdge(params.edges[0]); }
  });

  // Find a node by (part of) its name.
  var search = document.getElementById("search");
  var matches = document.getElementById("matches");
  function choose(id) {
    if (hiddenTypes.has(byId.get(id).group)) { return; }
    network.selectNodes([id]);
    network.focus(id, { scale: Math.max(network.getScale(), 1.2), animation: false });
    showNode(id);
  }
  search.addEventListener("input", function () {
    clear(matches);
    var wanted = search.value.trim().toLowerCase();
    if (!wanted) { return; }
    var found = data.nodes.filter(function (n) {
      return !hiddenTypes.has(n.group) && n.kgLabel.toLowerCase().indexOf(wanted) !== -1;
    });
    found.sort(function (a, b) {
      var sa = a.kgLabel.toLowerCase().indexOf(wanted) === 0 ? 0 : 1;
      var sb = b.kgLabel.toLowerCase().indexOf(wanted) === 0 ? 0 : 1;
      return sa - sb || b.value - a.value || (a.kgLabel < b.kgLabel ? -1 : 1);
    });
    found.slice(0, 20).forEach(function (n) {
      var item = add(matches, "li", n.kgLabel);
      add(item, "span", n.group, "kind");
      item.tabIndex = 0;
      item.addEventListener("click", function () { choose(n.id); });
      item.addEventListener("keydown", function (event) { if (event.key === "Enter") { choose(n.id); } });
    });
  });
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && matches.firstChild) { matches.firstChild.click(); }
  });

  // Show or hide node types.
  document.querySelectorAll("#filter input[type=checkbox]").forEach(function (box) {
    box.addEventListener("change", function () {
      var type = box.getAttribute("data-type");
      if (box.checked) { hiddenTypes.delete(type); } else { hiddenTypes.add(type); }
      nodes.update(data.nodes.filter(function (n) { return n.group === type; }).map(function (n) {
        return { id: n.id, hidden: hiddenTypes.has(type) };
      }));
      edges.update(data.edges.map(function (e) {
        return { id: e.id, hidden: hiddenTypes.has(byId.get(e.from).group) || hiddenTypes.has(byId.get(e.to).group) };
      }));
    });
  });
  document.getElementById("fit").addEventListener("click", function () { network.fit({ animation: false, maxZoomLevel: 1.5 }); });
})();
