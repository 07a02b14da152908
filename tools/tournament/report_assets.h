// The tournament report's inline CSS and script (report.cc writes them
// into the page, which references nothing outside itself).
#ifndef PYRAMID_TOOLS_TOURNAMENT_REPORT_ASSETS_H_
#define PYRAMID_TOOLS_TOURNAMENT_REPORT_ASSETS_H_

#include "absl/strings/string_view.h"

namespace pyramid {

// The page's style sheet, its <style> element's content.
inline constexpr absl::string_view kReportStyle = R"css(
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { margin-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
table { display: block; max-width: 100%; overflow-x: auto; }
pre { max-width: 100%; overflow-x: auto; }
td code, .verdict { overflow-wrap: anywhere; }
@media (max-width: 600px) { body { margin: 0.5em; } }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f2f2f2; }
.name { text-align: left; }
.bot { white-space: nowrap; }
.seat .rank { color: #555; white-space: nowrap; }
.self { background: #eee; }
.bad { color: #b00; }
.verdict { white-space: pre-line; }
.pager button { margin-right: 0.4em; }
code { font-size: 0.9em; }
svg { max-width: 100%; height: auto; }
svg text { font: 12px sans-serif; fill: #222; }
.chart { max-width: 100%; overflow-x: auto; }
.chart svg { min-width: 420px; display: block; }
.chart svg text { font-size: 13px; }
.chart svg .botname { font-weight: bold; }
svg .axis, svg .tick { stroke: #444; stroke-width: 1; }
svg .zero { stroke: #999; stroke-width: 1; stroke-dasharray: 4 3; }
svg .bar, svg .cap { stroke: #2a5db0; stroke-width: 2; }
svg .arrow { fill: #2a5db0; }
svg .dot { fill: #c0392b; }
)css";

// Pages the tables of class "paged" (the match list, data-bot="", and each
// standing bot's results, data-bot=K) from the match data, a <script
// type="application/json" id="match-data"> element that report.cc writes
// (AppendMatchData): each table gets a pager under it and shows the data's
// "page" rows at a time, made as the page's HTML makes its first page.
// "#match-N" opens the match list's page of match N.
inline constexpr absl::string_view kMatchScript = R"js(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('match-data').textContent);
  var P = data.page;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function relative(p) {
    return p !== '' && p[0] !== '/' && p[0] !== '\\' && p.indexOf(':') < 0;
  }
  function logOf(m) {
    return m[2] === 1 ? 'logs/' + data.game + '-' + m[1] + '.pyrlog' : m[2];
  }
  function viewerOf(log) {
    var name = log.slice(log.lastIndexOf('/') + 1);
    var dot = name.lastIndexOf('.');
    return 'matches/' + (dot >= 0 ? name.slice(0, dot) : name) + '.html';
  }
  function link(href, child) {
    var a = el('a');
    a.setAttribute('href', href);
    a.appendChild(child);
    return a;
  }
  function matchCell(m) {
    var td = el('td', 'name'), code = el('code', '', m[1]), log = logOf(m);
    td.appendChild(relative(log) ? link(viewerOf(log), code) : code);
    return td;
  }
  function botNode(k) {
    var text = document.createTextNode(data.bots[k]), node;
    if (k < data.ranked) {
      node = link('#bot-' + (k + 1), text);
    } else {
      node = el('span');
      node.appendChild(text);
    }
    node.className = 'bot';
    return node;
  }
  function verdictCell(m) {
    return el('td', m[6] === 'genuine' ? 'name' : 'name bad', m[6]);
  }
  function matchRow(m) {
    var tr = el('tr'), seats = el('td', 'name'), log = logOf(m), logCell;
    tr.id = 'match-' + m[0];
    tr.appendChild(el('td', '', String(m[0])));
    tr.appendChild(matchCell(m));
    m[3].forEach(function (k, i) {
      var seat = el('div', 'seat');
      seat.appendChild(botNode(k));
      if (i < m[4].length) {
        seat.appendChild(document.createTextNode(' '));
        seat.appendChild(el('span', 'rank', 'rank ' + m[4][i]));
      }
      seats.appendChild(seat);
    });
    tr.appendChild(seats);
    tr.appendChild(verdictCell(m));
    logCell = el('td', 'name');
    if (relative(log)) {
      var a = link(log, document.createTextNode(log));
      a.setAttribute('download', '');
      logCell.appendChild(a);
    } else {
      logCell.textContent = log;
    }
    tr.appendChild(logCell);
    return tr;
  }
  function botRow(m, seat) {
    var tr = el('tr'), has = seat < m[4].length;
    tr.appendChild(el('td', '', String(m[0])));
    tr.appendChild(matchCell(m));
    tr.appendChild(el('td', '', String(seat)));
    tr.appendChild(el('td', '', has ? String(m[4][seat]) : '\u00b7'));
    tr.appendChild(el('td', '', has ? String(m[5][seat]) : '\u00b7'));
    tr.appendChild(verdictCell(m));
    return tr;
  }
  var pagers = {};
  function pager(table) {
    var rows = [], bot = table.getAttribute('data-bot');
    data.m.forEach(function (m) {
      if (bot === '') { rows.push([m, -1]); return; }
      m[3].forEach(function (k, seat) {
        if (String(k) === bot) rows.push([m, seat]);
      });
    });
    var pages = Math.max(1, Math.ceil(rows.length / P)), page = 0;
    var bar = el('p', 'pager'), label = el('span');
    function button(text, to) {
      var b = el('button', '', text);
      b.type = 'button';
      b.addEventListener('click', function () { show(to()); });
      bar.appendChild(b);
      return b;
    }
    var first = button('First', function () { return 0; });
    var previous = button('Previous', function () { return page - 1; });
    bar.appendChild(label);
    label.style.marginRight = '0.4em';
    var next = button('Next', function () { return page + 1; });
    var last = button('Last', function () { return pages - 1; });
    function show(p) {
      page = Math.min(Math.max(0, p), pages - 1);
      while (table.rows.length > 1) table.deleteRow(1);
      var body = table.tBodies[0] || table;
      rows.slice(page * P, (page + 1) * P).forEach(function (r) {
        body.appendChild(r[1] < 0 ? matchRow(r[0]) : botRow(r[0], r[1]));
      });
      label.textContent = 'Page ' + (page + 1) + ' of ' + pages + ' (' +
          rows.length + (rows.length === 1 ? ' row)' : ' rows)');
      first.disabled = previous.disabled = page === 0;
      next.disabled = last.disabled = page === pages - 1;
    }
    if (pages > 1) {
      table.parentNode.insertBefore(bar, table.nextSibling);
      show(0);
    }
    return {rows: rows, show: show};
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.paged'),
      function (table) { pagers[table.id] = pager(table); });
  function openHash() {
    var found = /^#match-(\d+)$/.exec(location.hash), list = pagers['match-list'];
    if (!found || !list) return;
    for (var i = 0; i < list.rows.length; ++i) {
      if (String(list.rows[i][0][0]) === found[1]) {
        list.show(Math.floor(i / P));
        var row = document.getElementById('match-' + found[1]);
        if (row) row.scrollIntoView();
        return;
      }
    }
  }
  window.addEventListener('hashchange', openHash);
  openHash();
})();
)js";

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_REPORT_ASSETS_H_
