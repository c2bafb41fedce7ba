#if Tools
/// `GET /`: the collector's live page, a tool to keep open beside the simulator.
///
/// Hand-written HTML, CSS and JavaScript, no framework and no build step: the page asks
/// `GET /events` for the latest events, then every second for the ones after the last it has
/// (`?since=`), so it updates without reloading and keeps the reader's scroll position. It
/// draws everything from the JSON with `textContent` and DOM nodes, never markup built from
/// received text, so an event named `<script>` shows as text. Each event is one line (time,
/// type, user, the app's own parameters); the SDK's `TelemetryDeck.*` parameters are folded
/// behind one click. Beside the events: counts per type, an SVG chart of events per minute
/// by type for the last 30 minutes, the rejected requests, and filters by type and text.
enum CollectorPage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>TelemetryKit collector</title>
        <style>
        /* The script keeps what the reader looks at in place (keepInView); the browser's own
           scroll anchoring, which Safari lacks, is off so that every browser does the same. */
        html,body{overflow-anchor:none}
        body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{display:flex;gap:1em;align-items:baseline;padding:10px 16px;background:#fff;
          border-bottom:1px solid #ddd;position:sticky;top:0;z-index:1}
        h1{font-size:16px;margin:0}h2{font-size:13px;margin:0 0 6px;color:#555;text-transform:uppercase}
        #connection{color:#888}#connection.down{color:#b00020}
        main{padding:12px 16px}
        #overview{display:flex;gap:24px;flex-wrap:wrap;margin-bottom:12px}
        #overview>div{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 12px}
        #types td{padding:1px 8px 1px 0}#types td.count{text-align:right;font-variant-numeric:tabular-nums}
        #legend span{margin-right:10px;white-space:nowrap}#legend i{display:inline-block;width:9px;height:9px;
          margin-right:3px;border-radius:2px}
        #rejected-box{background:#fff;border:1px solid #e6b3b3;border-radius:6px;padding:8px 12px;margin-bottom:12px}
        #rejected-box.none{border-color:#ddd}
        #rejections{margin:0;padding-left:18px;max-height:240px;overflow:auto}
        .status{font-weight:600;color:#b00020}.where{color:#555}
        pre.offending{margin:2px 0 6px;padding:4px 6px;background:#fdf3f3;white-space:pre-wrap;
          word-break:break-all;max-height:6em;overflow:auto}
        #filters{margin:6px 0}#filters label{margin-right:12px}
        table#events{border-collapse:collapse;width:100%;table-layout:fixed;background:#fff}
        #events th,#events td{border-bottom:1px solid #eee;padding:3px 6px;text-align:left;vertical-align:top}
        #events th.time{width:6em}#events th.type{width:17em}#events th.user{width:8em}
        #events td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
        #events tr:has(details[open]) td.params{white-space:normal}
        .p{display:inline-block;max-width:22em;margin-right:10px;overflow:hidden;text-overflow:ellipsis;
          white-space:nowrap;vertical-align:bottom;color:#333}.p b{font-weight:normal;color:#888}
        details.sdk{display:inline-block;vertical-align:top;margin-right:10px}details.sdk summary{display:inline;
          cursor:pointer;color:#06c}details.sdk[open]{display:block}details.sdk[open] .p{color:#666}
        .tag{margin-left:6px;font-size:11px;color:#888}
        tr.violation{background:#fde8e8}.violation-text{display:block;color:#b00020}
        .user{font-family:ui-monospace,monospace;color:#555}
        </style></head>
        <body>
        <header><h1>TelemetryKit collector</h1><span id="summary">Waiting for the collector…</span>
        <span id="connection"></span> <a href="/events">JSON</a></header>
        <main>
        <section id="overview">
        <div><h2>Events by type</h2><table id="types"></table></div>
        <div><h2>Events per minute, last 30 minutes</h2>
        <svg id="chart" width="620" height="150" role="img" aria-label="Events per minute by type"></svg>
        <div id="legend"></div></div>
        </section>
        <section id="rejected-box" class="none"><h2>Rejected requests: <span id="rejected-count">0</span></h2>
        <ol id="rejections"></ol></section>
        <section><h2>Events, newest first</h2>
        <div id="filters"><label>Type <select id="type-filter"><option value="">all types</option></select></label>
        <label>Text <input id="text-filter" type="search" placeholder="type, user, parameter…"></label>
        <span id="shown"></span></div>
        <table id="events"><thead><tr><th class="time">time</th><th class="type">type</th><th class="user">user</th>
        <th>parameters</th></tr></thead><tbody id="rows"></tbody></table>
        </section>
        </main>
        <script>
        "use strict";
        // The SDK's own parameters, folded so that a row shows what the app sent.
        const sdkPrefix = "TelemetryDeck.";
        // Rows kept in the page; older ones stay available through /events.
        const maxRows = 500;
        const palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948"];
        const $ = (id) => document.getElementById(id);
        const rows = $("rows"), typeFilter = $("type-filter"), textFilter = $("text-filter");
        let next = null;
        let typeNames = "";
        const initial = new URLSearchParams(location.search);
        // The type asked for in the address, chosen once the first answer lists it.
        let requestedType = initial.get("type") || "";
        textFilter.value = initial.get("q") || "";

        function el(tag, attributes, text) {
          const node = document.createElement(tag);
          for (const name in attributes || {}) node.setAttribute(name, attributes[name]);
          if (text !== undefined) node.textContent = text;
          return node;
        }
        function pad(number) { return String(number).padStart(2, "0"); }
        function clock(date) {
          return pad(date.getHours()) + ":" + pad(date.getMinutes()) + ":" + pad(date.getSeconds());
        }
        function parameter(name, value) {
          const span = el("span", {class: "p", title: name + " = " + value});
          span.append(el("b", null, name + "="), String(value));
          return span;
        }

        function row(event) {
          const tr = el("tr");
          const keys = Object.keys(event.payload).sort();
          const own = keys.filter((key) => !key.startsWith(sdkPrefix));
          const sdk = keys.filter((key) => key.startsWith(sdkPrefix));
          tr.dataset.type = event.type;
          tr.dataset.text = [event.type, event.clientUser, ...keys.map((key) => key + "=" + event.payload[key])]
            .join(" ").toLowerCase();
          const time = new Date(event.receivedAt);
          tr.append(el("td", {class: "time", title: event.receivedAt}, isNaN(time) ? event.receivedAt : clock(time)));
          const type = el("td", {class: "type", title: event.type}, event.type);
          if (event.isTestMode) type.append(el("span", {class: "tag"}, "test"));
          tr.append(type);
          tr.append(el("td", {class: "user", title: event.clientUser}, event.clientUser.slice(0, 12)));
          const cell = el("td", {class: "params"});
          if (sdk.length > 0) {
            const details = el("details", {class: "sdk"});
            details.append(el("summary", null, "+" + sdk.length + " SDK"));
            for (const key of sdk) details.append(parameter(key.slice(sdkPrefix.length), event.payload[key]));
            cell.append(details);
          }
          if (event.floatValue !== undefined) cell.append(parameter("floatValue", event.floatValue));
          for (const key of own) cell.append(parameter(key, event.payload[key]));
          for (const violation of event.planViolations || []) {
            tr.classList.add("violation");
            cell.append(el("span", {class: "violation-text"}, "✗ " + violation));
          }
          tr.append(cell);
          return tr;
        }

        function matches(tr) {
          const query = textFilter.value.trim().toLowerCase();
          return (!typeFilter.value || tr.dataset.type === typeFilter.value)
            && (!query || tr.dataset.text.includes(query));
        }
        function applyFilter() {
          // The filters live in the address too, so a reload or a shared link keeps them.
          const query = new URLSearchParams();
          if (typeFilter.value) query.set("type", typeFilter.value);
          if (textFilter.value) query.set("q", textFilter.value);
          const search = query.toString();
          if (location.search.slice(1) !== search) history.replaceState(null, "", search ? "?" + search : "/");
          let shown = 0;
          for (const tr of rows.children) {
            tr.hidden = !matches(tr);
            if (!tr.hidden) shown += 1;
          }
          $("shown").textContent = shown + " of " + rows.children.length + " shown";
        }

        // New events go on top.
        function addEvents(events) {
          if (events.length === 0) return;
          const fragment = document.createDocumentFragment();
          for (let index = events.length - 1; index >= 0; index -= 1) {
            const tr = row(events[index]);
            tr.hidden = !matches(tr);
            fragment.append(tr);
          }
          rows.prepend(fragment);
          while (rows.children.length > maxRows) rows.lastElementChild.remove();
          applyFilter();
        }

        // What the reader is looking at and where it is on screen: the first box or shown row
        // that reaches below the sticky header. New rows, types and rejections all grow the
        // page above it; keepInView scrolls by as much, so a reader scrolled down stays on what
        // they were reading. At the very top there is nothing to keep: new events come into view.
        function inView() {
          if (window.scrollY <= 0) return null;
          const below = document.querySelector("header").getBoundingClientRect().bottom;
          for (const node of [$("overview"), $("rejected-box"), $("filters"), ...rows.children]) {
            if (node.hidden) continue;
            const box = node.getBoundingClientRect();
            if (box.bottom > below) return {node: node, top: box.top};
          }
          return null;
        }
        function keepInView(seen) {
          if (seen === null || !seen.node.isConnected || seen.node.hidden) return;
          const moved = seen.node.getBoundingClientRect().top - seen.top;
          if (moved !== 0) window.scrollBy(0, moved);
        }

        function renderSummary(doc) {
          let text = doc.received + " events received, " + doc.duplicates + " duplicates, " + doc.requests
            + " requests, " + doc.rejected + " rejected";
          if (doc.planViolations !== undefined) text += ", " + doc.planViolations + " break the tracking plan";
          if (doc.first > 1) text += " (the oldest " + (doc.first - 1) + " are no longer kept)";
          $("summary").textContent = text + ".";
        }

        function renderTypes(types) {
          const names = Object.keys(types).sort((a, b) => types[b] - types[a] || a.localeCompare(b));
          $("types").replaceChildren(...names.map((name) => {
            const tr = el("tr");
            tr.append(el("td", {class: "count"}, String(types[name])), el("td", {class: "name"}, name));
            return tr;
          }));
          const sorted = names.slice().sort();
          if (sorted.join("\n") === typeNames) return;
          typeNames = sorted.join("\n");
          const chosen = typeFilter.value || requestedType;
          typeFilter.replaceChildren(el("option", {value: ""}, "all types"),
            ...sorted.map((name) => el("option", {value: name}, name)));
          typeFilter.value = chosen;
          if (typeFilter.value === requestedType) requestedType = "";
          applyFilter();
        }

        // Stacked bars, one per minute, the busiest types in colour and the rest in grey.
        function renderChart(doc) {
          const svg = $("chart"), ns = "http://www.w3.org/2000/svg";
          const width = 620, height = 150, left = 34, bottom = 18, slots = 30;
          const totals = {};
          for (const minute of doc.minutes) {
            for (const type in minute.counts) totals[type] = (totals[type] || 0) + minute.counts[type];
          }
          const ranked = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || a.localeCompare(b));
          const colour = {};
          ranked.forEach((type, index) => { colour[type] = palette[index] || "#aaa"; });
          const byMinute = {};
          for (const minute of doc.minutes) byMinute[minute.minute] = minute.counts;
          let highest = 1;
          for (const minute of doc.minutes) {
            highest = Math.max(highest, Object.values(minute.counts).reduce((sum, count) => sum + count, 0));
          }
          const shapes = [];
          const barWidth = (width - left) / slots;
          const scale = (height - bottom - 6) / highest;
          function shape(tag, attributes, text) {
            const node = document.createElementNS(ns, tag);
            for (const name in attributes) node.setAttribute(name, attributes[name]);
            if (text !== undefined) node.textContent = text;
            return node;
          }
          shapes.push(shape("text", {x: 0, y: 12, class: "axis"}, String(highest)));
          shapes.push(shape("text", {x: 0, y: height - bottom}, "0"));
          shapes.push(shape("line", {x1: left, y1: height - bottom, x2: width, y2: height - bottom, stroke: "#bbb"}));
          for (let slot = 0; slot < slots; slot += 1) {
            const minute = doc.now - slots + 1 + slot;
            const counts = byMinute[minute] || {};
            let y = height - bottom;
            for (const type of ranked.slice().reverse()) {
              if (!counts[type]) continue;
              const barHeight = Math.max(1, counts[type] * scale);
              y -= barHeight;
              const bar = shape("rect", {x: left + slot * barWidth + 1, y: y, width: barWidth - 2,
                height: barHeight, fill: colour[type], class: "bar", "data-type": type, "data-count": counts[type]});
              bar.append(shape("title", {}, clock(new Date(minute * 60000)).slice(0, 5) + " " + type + ": "
                + counts[type]));
              shapes.push(bar);
            }
          }
          shapes.push(shape("text", {x: left, y: height - 4}, "−30 min"));
          shapes.push(shape("text", {x: width, y: height - 4, "text-anchor": "end"}, "now"));
          svg.replaceChildren(...shapes);
          $("legend").replaceChildren(...ranked.slice(0, palette.length + 1).map((type, index) => {
            const item = el("span");
            const swatch = el("i");
            swatch.style.background = index < palette.length ? colour[type] : "#aaa";
            item.append(swatch, index < palette.length ? type : "other types");
            return item;
          }));
        }

        function renderRejections(doc) {
          $("rejected-count").textContent = String(doc.rejected);
          $("rejected-box").classList.toggle("none", doc.rejected === 0);
          $("rejections").replaceChildren(...doc.rejections.map((rejection) => {
            const item = el("li", {class: "rejection"});
            item.append(el("span", {class: "status"}, String(rejection.status)), " ",
              el("span", {class: "reason"}, rejection.reason));
            const at = new Date(rejection.time);
            let where = (isNaN(at) ? rejection.time : clock(at)) + " · " + rejection.path;
            if (rejection.eventIndex !== undefined) where += " · event " + rejection.eventIndex;
            if (rejection.member !== undefined) where += " · member " + rejection.member;
            item.append(el("div", {class: "where"}, where));
            if (rejection.event !== undefined) item.append(el("pre", {class: "offending"}, rejection.event));
            return item;
          }));
        }

        async function poll() {
          let again = 1000;
          try {
            const url = next === null ? "/events?limit=200" : "/events?since=" + next + "&limit=500";
            const response = await fetch(url, {cache: "no-store"});
            const doc = await response.json();
            const seen = inView();
            if (next !== null && doc.received < next) {
              // The collector was restarted or reset: start over.
              rows.replaceChildren();
              next = null;
              again = 0;
            } else {
              addEvents(doc.events);
              next = doc.next;
              if (doc.next < doc.received) again = 0;
            }
            renderSummary(doc);
            renderTypes(doc.types);
            renderChart(doc);
            renderRejections(doc);
            $("connection").textContent = "live";
            $("connection").className = "";
            keepInView(seen);
          } catch (error) {
            $("connection").textContent = "the collector does not answer; retrying";
            $("connection").className = "down";
          }
          setTimeout(poll, again);
        }
        typeFilter.addEventListener("change", applyFilter);
        textFilter.addEventListener("input", applyFilter);
        poll();
        </script>
        </body></html>

        """#
}
#endif
