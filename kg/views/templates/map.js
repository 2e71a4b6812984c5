/* kg viz maps (concepts, papers): labels that never overlap, the map's
   filters, tooltips and the concept panel. Loaded before view.js, which calls
   kgMap.attach(view) once the network exists. Corpus text is only ever set
   with textContent or drawn on the canvas. */
window.kgMap = (function () {
  "use strict";
  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }
  var groups;
  function groupName(n) {
    var g = groups.get(n.kgGroup);
    return g ? "community " + g.number + " (" + g.name + ")" : "no community";
  }

  function attach(view) {
    var data = view.data, map = data.map, network = view.network;
    var add = view.add, text = view.text, inflate = view.inflate;
    groups = new Map(map.groups.map(function (g) { return [g.number, g]; }));

    // Tooltips are written when first hovered: a 1,000-concept map has some 6,000, most never seen.
    function nodeTitle(n) {
      var kind = n.kgType === "Paper" ? "Paper" : n.kgType + " \u00b7 " + plural(n.kgPapers, "paper");
      return [n.kgLabel, kind + " \u00b7 " + groupName(n)].concat(n.kgFacts).join("\n");
    }
    function edgeTitle(e) {
      var arrow = e.arrows ? " \u2014" + e.kgRelation + "\u2192 " : " \u2014" + e.kgRelation + "\u2014 ";
      var lines = [view.byId.get(e.from).kgLabel + arrow + view.byId.get(e.to).kgLabel];
      if (map.kind === "concepts" && e.kgShared) {
        lines.push(plural(e.kgShared, "paper") + " mention both (" + e.kgStrength.toFixed(1) + "\u00d7 what chance would give)");
      }
      inflate(e.kgEvidence).forEach(function (pair) { lines.push("\u201c" + pair[1] + "\u201d\n    \u2014 " + pair[0]); });
      return lines.concat(e.kgFacts).join("\n");
    }
    var periods = map.periods;

    // Labels: the most important nodes first, each drawn only where it overlaps no label already
    // drawn; recomputed on every drawing, so zooming in shows more (level of detail).
    var canvas = document.querySelector("#network canvas");
    var measure = document.createElement("canvas").getContext("2d");
    measure.font = "10px sans-serif";
    var order = data.nodes.filter(function (n) { return n.kgDraw; }).sort(function (a, b) {
      return b.value - a.value || (a.kgLabel < b.kgLabel ? -1 : a.kgLabel > b.kgLabel ? 1 : 0);
    });
    var MAX_LABEL = 40;
    order.forEach(function (n) {
      n.kgText = n.kgLabel.length > MAX_LABEL ? n.kgLabel.slice(0, MAX_LABEL - 1) + "\u2026" : n.kgLabel;
      n.kgWidth10 = measure.measureText(n.kgText).width;
    });
    function titled(items, item, title) {
      if (item && !item.kgTitled) {
        item.kgTitled = true;
        items.update({ id: item.id, title: title });
      }
    }
    network.on("hoverNode", function (params) {
      view.withDetails();
      var n = view.byId.get(params.node);
      if (n && !n.kgAdded) { titled(view.nodes, n, nodeTitle(n)); }
    });
    network.on("hoverEdge", function (params) {
      view.withDetails();
      var e = view.edgeById.get(params.edge);
      if (e) { titled(view.edges, e, edgeTitle(e)); }
    });

    var positions = network.getPositions();
    network.on("dragEnd", function () { positions = network.getPositions(); });
    view.labelBoxes = [];
    var CELL = 80, PAD = 1;
    network.on("afterDrawing", function (ctx) {
      var scale = network.getScale();
      var width = canvas.clientWidth, height = canvas.clientHeight;
      var grid = new Map(), boxes = [], font = "";
      var selected = new Set(network.getSelectedNodes());
      var queue = selected.size ? order.filter(function (n) { return selected.has(n.id); }).concat(order.filter(function (n) { return !selected.has(n.id); })) : order;
      ctx.save();
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.lineJoin = "round";
      ctx.lineWidth = 3 / scale;
      ctx.strokeStyle = "rgba(255,255,255,0.9)";
      ctx.fillStyle = "#111111";
      queue.forEach(function (n) {
        var at = positions[n.id];
        if (n.kgHidden || !at) { return; }
        var dom = network.canvasToDOM(at);
        var px = Math.round(11 + 5 * n.value), w = n.kgWidth10 * px / 10 + 2 * PAD, h = px * 1.25 + 2 * PAD;
        var box = { x0: dom.x - w / 2, y0: dom.y - h / 2, x1: dom.x + w / 2, y1: dom.y + h / 2 };
        if (box.x1 < 0 || box.y1 < 0 || box.x0 > width || box.y0 > height) { return; }
        var cells = [];
        for (var cx = Math.floor(box.x0 / CELL); cx <= Math.floor(box.x1 / CELL); cx++) {
          for (var cy = Math.floor(box.y0 / CELL); cy <= Math.floor(box.y1 / CELL); cy++) { cells.push(cx + "," + cy); }
        }
        var clash = cells.some(function (key) {
          return (grid.get(key) || []).some(function (o) { return box.x0 < o.x1 && o.x0 < box.x1 && box.y0 < o.y1 && o.y0 < box.y1; });
        });
        if (clash) { return; }
        cells.forEach(function (key) { if (!grid.has(key)) { grid.set(key, []); } grid.get(key).push(box); });
        box.id = n.id;
        box.text = n.kgText;
        boxes.push(box);
        var wanted = (px / scale) + "px sans-serif";
        if (wanted !== font) { ctx.font = font = wanted; }  // setting a font is slow: only when it changes
        ctx.strokeText(n.kgText, at.x, at.y);
        ctx.fillText(n.kgText, at.x, at.y);
      });
      ctx.restore();
      view.labelBoxes = boxes;
    });

    // Filters: community, minimum papers, period range.
    var community = document.getElementById("community");
    var minPapers = document.getElementById("min-papers");
    var minShown = document.getElementById("min-papers-value");
    var from = document.getElementById("from"), to = document.getElementById("to");
    var most = data.nodes.reduce(function (m, n) { return Math.max(m, n.kgPapers); }, 1);
    if (map.kind === "concepts") { minPapers.max = String(most); } else { document.getElementById("min-papers-row").hidden = true; }
    if (periods.length > 1) {
      periods.forEach(function (p, i) {
        add(from, "option", p).value = String(i);
        add(to, "option", p).value = String(i);
      });
      to.value = String(periods.length - 1);
      document.getElementById("periods").hidden = false;
    }
    function inRange(n) {
      if (!n.kgTrend || !n.kgTrend.length) { return n.kgPapers; }
      var a = Number(from.value || 0), b = Number(to.value || periods.length - 1), total = 0;
      for (var i = Math.min(a, b); i <= Math.max(a, b); i++) { total += n.kgTrend[i] || 0; }
      return total;
    }
    view.filters.push(function (n) {
      if (community.value && String(n.kgGroup) !== community.value) { return false; }
      if (map.kind !== "concepts" || n.kgType === "Paper") { return true; }
      var ranged = periods.length > 1 ? inRange(n) : n.kgPapers;
      return ranged >= Math.max(1, Number(minPapers.value));
    });
    [community, minPapers, from, to].forEach(function (control) {
      control.addEventListener("input", function () { minShown.textContent = minPapers.value; view.applyFilters(); });
    });

    // A trend line (papers per period), drawn as SVG elements, with its numbers as text beside it.
    var SVG = "http://www.w3.org/2000/svg";
    function sparkline(parent, counts) {
      var w = 240, h = 40, top = Math.max.apply(null, counts.concat([1]));
      var svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("width", w); svg.setAttribute("height", h); svg.setAttribute("class", "spark");
      svg.setAttribute("role", "img");
      var step = counts.length > 1 ? (w - 4) / (counts.length - 1) : 0;
      var points = counts.map(function (c, i) { return (2 + i * step).toFixed(1) + "," + (h - 3 - (h - 6) * c / top).toFixed(1); });
      var line = document.createElementNS(SVG, "polyline");
      line.setAttribute("points", points.join(" "));
      line.setAttribute("fill", "none"); line.setAttribute("stroke", "#332288"); line.setAttribute("stroke-width", "1.5");
      svg.appendChild(line);
      var title = document.createElementNS(SVG, "title");
      title.textContent = counts.map(function (c, i) { return periods[i] + ": " + c; }).join(", ");
      svg.appendChild(title);
      parent.appendChild(svg);
      add(parent, "p", periods[0] + " \u2192 " + periods[periods.length - 1] + " (per " + map.period + "): " + counts.join(" \u00b7 "), "meta");
    }

    function papersOf(n) { return n.kgPaperList.map(function (p) { return [text(p[0]), text(p[1]), p[2], p[3]]; }); }

    // Papers around a concept, added to the map on request.
    var around = new Map();
    function togglePapers(n, button) {
      if (around.has(n.id)) {
        var added = around.get(n.id);
        view.edges.remove(added.edges);
        view.nodes.remove(added.nodes.filter(function (id) { return !view.byId.get(id) || view.byId.get(id).kgAdded; }));
        around.delete(n.id);
        button.textContent = "Show its papers on the map";
        return;
      }
      var at = positions[n.id], list = papersOf(n), nodesAdded = [], edgesAdded = [];
      list.forEach(function (p, i) {
        var angle = 2 * Math.PI * i / list.length, radius = 60 + 4 * list.length;
        if (!view.nodes.get(p[0])) {
          var node = { id: p[0], kgLabel: p[1], kgAdded: true, kgType: "Paper", kgPapers: 0, kgEvidence: [], kgMore: 0,
            kgFacts: [p[2] ? "" : "(untitled: a label derived from its abstract)", p[3] || ""].filter(Boolean),
            label: p[2] ? (p[1].length > 30 ? p[1].slice(0, 29) + "\u2026" : p[1]) : "", shape: "square", size: 7,
            color: { background: "#ffffff", border: "#0072B2" }, x: at.x + radius * Math.cos(angle), y: at.y + radius * Math.sin(angle),
            title: p[1] + (p[2] ? "" : "\n(derived label, not a title)") };
          view.byId.set(p[0], node);
          view.nodes.add(node);
          nodesAdded.push(p[0]);
        }
        var edge = { id: "around-" + n.id + "-" + i, from: p[0], to: n.id, color: { color: "#0072B2" }, dashes: [4, 3], width: 1 };
        view.edges.add(edge);
        edgesAdded.push(edge.id);
      });
      positions = network.getPositions();
      around.set(n.id, { nodes: nodesAdded, edges: edgesAdded });
      button.textContent = "Hide its papers";
    }

    // The concept panel: type, names, community, trend, relations with their sentences, papers.
    var paperPanel = view.showNode;
    view.showNode = function (id) {
      view.withDetails();
      var n = view.byId.get(id);
      if (!n || n.kgType === "Paper") { paperPanel(id); return; }
      var info = view.info;
      view.clear(info);
      add(info, "h3", n.kgLabel);
      add(info, "p", n.kgType + " \u00b7 " + plural(n.kgPapers, "paper") + " \u00b7 " + groupName(n), "meta");
      var others = n.kgNames.filter(function (name) { return name !== n.kgLabel; });
      if (others.length) { add(info, "p", "Also written: " + others.join("; ")); }
      if (n.kgTrend.length > 1) { add(info, "h4", "Papers over time"); sparkline(info, n.kgTrend); }
      if (n.kgRelated.length) {
        add(info, "h4", "Relations");
        n.kgRelated.forEach(function (r) {
          var other = text(r[2]);
          add(info, "p", r[1] ? n.kgLabel + " \u2014" + r[0] + "\u2192 " + other : other + " \u2014" + r[0] + "\u2192 " + n.kgLabel, "relation");
          inflate(r[3]).forEach(function (pair) { add(add(info, "blockquote", pair[1]), "cite", "\u2014 " + pair[0]); });
        });
      }
      add(info, "h4", "Papers");
      var list = add(info, "ul");
      papersOf(n).forEach(function (p) {
        var item = add(list, "li", p[1]);
        if (!p[2]) { add(item, "span", " (derived label, not a title)", "derived"); }
        if (p[3]) { add(item, "span", " " + p[3], "date"); }
      });
      if (n.kgMorePapers) { add(info, "p", "\u2026 and " + n.kgMorePapers + " more", "meta"); }
      if (n.kgPaperList.length) {
        var button = add(info, "button", around.has(n.id) ? "Hide its papers" : "Show its papers on the map");
        button.type = "button";
        button.addEventListener("click", function () { togglePapers(n, button); });
      }
      if (n.kgEvidence.length) { add(info, "h4", "Sentences"); view.addEvidence(n); }
      var more = add(info, "p", "Everything the graph says about it: ", "meta");
      add(more, "code", "kg concept \"" + n.kgLabel.replace(/"/g, "\\\"") + "\"");
      add(info, "p", id, "iri");
    };
  }

  return { attach: attach };
})();
