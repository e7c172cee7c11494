// Live pages: follow /api/v1/events (Server-Sent Events). The dashboard updates now playing,
// heart rate, zone and today's plays without reloading; a workout in progress updates its
// figures, heart-rate curve and time in zone as readings arrive. Pages work without it.
"use strict";
(function () {
  if (!document.body || !document.body.dataset.live || !window.EventSource) return;
  const base = document.documentElement.dataset.base || "";
  // Times and days as the server writes them: in the display time zone, not the browser's.
  const zone = document.documentElement.dataset.tz || undefined;
  function localDay(date) {
    // en-CA writes YYYY-MM-DD.
    try { return date.toLocaleDateString("en-CA", { timeZone: zone }); } catch (e) { return date.toLocaleDateString("en-CA"); }
  }
  function localTime(date) {
    const options = { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: zone };
    try { return date.toLocaleTimeString("en-GB", options); } catch (e) { delete options.timeZone; return date.toLocaleTimeString("en-GB", options); }
  }
  const $ = (sel) => document.querySelector(sel);
  const status = $("[data-live-status]");
  const nowCard = $("[data-player]");
  const player = nowCard ? nowCard.dataset.player : "";
  let position = null; // {elapsed, duration, at (ms), playing}
  // The default player's MPD cannot be reached: said on the card, not "Nothing is playing".
  const downNotice = $("[data-mpd-down]");
  let mpdDown = !!downNotice && !downNotice.hidden;
  let source = null;
  let retry = 1000;
  // The last event this page has seen: a page made by the server names the last event it
  // shows (data-last-event), so the stream replays what happened since; then each event's id.
  const workoutEl = $("[data-live-workout]");
  let lastEventID = workoutEl && workoutEl.dataset.lastEvent ? workoutEl.dataset.lastEvent : null;

  function setText(sel, text) {
    const el = $(sel);
    if (el) el.textContent = text == null ? "" : String(text);
  }
  // Pages+EmptyStates.swift's withCode: `backticked` commands set as code.
  function setWithCode(sel, text) {
    const el = $(sel);
    if (!el) return;
    el.textContent = "";
    String(text || "").split("`").forEach((part, i) => {
      if (!part) return;
      if (i % 2) { const code = document.createElement("code"); code.textContent = part; el.append(code); }
      else el.append(part);
    });
  }
  function clock(s) {
    s = Math.max(0, Math.round(s || 0));
    const m = Math.floor(s / 60), r = s % 60;
    return m + ":" + (r < 10 ? "0" : "") + r;
  }
  function setStatus(state, text) {
    if (!status) return;
    status.dataset.state = state;
    status.textContent = text;
  }

  function showNowPlaying(now) {
    const cover = $("[data-np-cover]");
    if (!now) {
      setText("[data-np-title]", mpdDown ? "MPD is not reachable" : "Nothing is playing");
      setText("[data-np-artist]", "");
      setText("[data-np-album]", "");
      setText("[data-np-state]", mpdDown ? "Not connected" : "Stopped");
      setText("[data-np-duration]", "–");
      if (cover) cover.src = base + "/static/cover.svg";
      position = null;
      tick();
      return;
    }
    const t = now.track || {};
    setText("[data-np-title]", t.title);
    setText("[data-np-artist]", t.artist);
    setText("[data-np-album]", t.album);
    setText("[data-np-state]", now.state === "play" ? "Playing" : "Paused");
    setText("[data-np-duration]", now.duration_s ? clock(now.duration_s) : "–");
    if (cover) {
      const src = t.id ? base + "/covers/" + encodeURIComponent(t.id) : base + "/static/cover.svg";
      if (cover.getAttribute("src") !== src) cover.src = src;
    }
    position = { elapsed: now.elapsed_s || 0, duration: now.duration_s || 0, at: Date.now(), playing: now.state === "play" };
    tick();
  }

  function tick() {
    const bar = $("[data-np-progress]");
    if (!position) {
      if (bar) { bar.max = 1; bar.value = 0; }
      setText("[data-np-elapsed]", "0:00");
      return;
    }
    let elapsed = position.elapsed + (position.playing ? (Date.now() - position.at) / 1000 : 0);
    if (position.duration) elapsed = Math.min(elapsed, position.duration);
    if (bar) { bar.max = position.duration || 1; bar.value = elapsed; }
    setText("[data-np-elapsed]", clock(elapsed));
  }

  function showHeartRate(bpm, zone) {
    setText("[data-hr-bpm]", Math.round(bpm));
    const z = $("[data-hr-zone]");
    if (z) {
      z.textContent = "Zone " + zone;
      z.className = "zone z" + zone;
      z.dataset.hrZone = String(zone);
    }
  }

  function addPlay(listen) {
    const list = $("[data-today]");
    if (!list || !listen || !listen.track) return;
    const started = new Date(listen.started_at);
    // A new day began since the page was made: today's list (and the rest) start over.
    if (list.dataset.today && localDay(started) !== list.dataset.today) { window.location.reload(); return; }
    const empty = $("[data-today-empty]");
    if (empty) empty.remove();
    const li = document.createElement("li");
    li.className = listen.counted ? "play" : "play skip";
    const time = document.createElement("time");
    time.dateTime = listen.started_at;
    time.textContent = localTime(started);
    const what = document.createElement("span");
    what.className = "what";
    const title = document.createElement(listen.track.id ? "a" : "span");
    if (listen.track.id) title.href = base + "/tracks/" + encodeURIComponent(listen.track.id);
    title.textContent = listen.track.title;
    what.append(title);
    if (listen.track.artist) {
      const by = document.createElement("span");
      by.className = "by";
      by.textContent = " — " + listen.track.artist;
      what.append(by);
    }
    li.append(time, what);
    if (!listen.counted) {
      const badge = document.createElement("span");
      badge.className = "badge skip";
      badge.textContent = "skipped";
      li.append(badge);
    }
    list.prepend(li);
  }

  function workout(id, running) {
    const el = $("[data-workout]");
    if (!el) return;
    el.dataset.workout = running ? String(id) : "";
    el.textContent = "";
    if (running) {
      const a = document.createElement("a");
      a.href = base + "/workouts/" + encodeURIComponent(id);
      a.textContent = "Workout in progress";
      el.append(a);
    } else {
      el.textContent = "No workout in progress";
    }
  }

  // The suggestion follows the song and the zone: asked again when either changes. An empty
  // list is also asked again every little while: its fix (`mpc crop`, a new song) is made
  // outside the page, and MPD's queue is not on the event stream.
  let nextTimer = null, emptyTimer = null;
  const EMPTY_RETRY_MS = 10000;
  function retryWhileEmpty() {
    clearTimeout(emptyTimer);
    emptyTimer = setTimeout(() => { if (document.visibilityState === "hidden") retryWhileEmpty(); else refreshSuggestion(); },
      EMPTY_RETRY_MS);
  }
  // The Play / Next / Add buttons of a suggestion, as the page draws them (Pages+Queue.swift).
  function queueButtons(id) {
    const form = document.createElement("form");
    form.method = "post";
    form.action = base + "/player/queue";
    form.className = "queue-buttons compact";
    form.dataset.queueKind = "track";
    for (const [name, value] of [["kind", "track"], ["id", String(id)], ["back", "/"]]) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.append(input);
    }
    for (const [at, long, short] of [["now", "Play now", "Play"], ["next", "Play next", "Next"], ["end", "Add to the queue", "Add"]]) {
      const button = document.createElement("button");
      button.type = "submit";
      button.name = "at";
      button.value = at;
      button.className = "secondary";
      button.title = long;
      button.setAttribute("aria-label", long + ": this track");
      button.textContent = short;
      form.append(button);
    }
    return form;
  }
  function refreshSuggestion() {
    const list = $("[data-next]");
    if (!list) return;
    clearTimeout(nextTimer);
    nextTimer = setTimeout(() => {
      fetch(base + "/api/v1/recommendations/next?limit=3", { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : null))
        .then((data) => {
          if (!data) return;
          list.textContent = "";
          for (const s of data.suggestions || []) {
            const li = document.createElement("li");
            const a = document.createElement("a");
            a.href = base + "/tracks/" + encodeURIComponent(s.track.id);
            a.textContent = s.track.title;
            const by = document.createElement("span");
            by.className = "by";
            by.textContent = " — " + (s.track.artist || "Unknown artist");
            const bpm = document.createElement("span");
            bpm.className = "count";
            bpm.textContent = s.track.bpm ? Math.round(s.track.bpm) + " bpm" : "";
            li.append(a, by, bpm);
            if (list.hasAttribute("data-queue-buttons")) li.append(queueButtons(s.track.id));
            list.append(li);
          }
          const empty = $("[data-next-empty]");
          if (empty) empty.hidden = (data.suggestions || []).length > 0;
          // Why the list is empty and what to do (empty_reason), or a remark on it (note).
          const why = data.empty_reason;
          setWithCode("[data-next-why]", why ? why.message : "No suggestion right now.");
          const whyEl = $("[data-next-why]");
          if (whyEl) whyEl.dataset.nextWhy = why ? why.code : "";
          setWithCode("[data-next-fix]", why ? why.fix : "");
          setWithCode("[data-next-note]", data.note || "");
          const note = $("[data-next-note]");
          if (note) note.hidden = !data.note;
          if ((data.suggestions || []).length === 0) retryWhileEmpty();
          const caption = $("[data-next-for]");
          if (caption) {
            caption.textContent = data.mode === "cadence" ? "For your running cadence"
              : data.zone != null ? "For zone " + data.zone + (data.zone_source === "live" ? " (your heart rate now)" : "")
              : "From your history (no heart rate now)";
          }
        })
        .catch(() => {});
    }, 300);
  }

  // Site.swift's SiteFormat.span: "42 s", "12 min", "1 h 5 min".
  function span(s) {
    if (s < 59.5) return Math.round(Math.max(0, s)) + " s";
    const m = Math.round(s / 60);
    if (m < 60) return m + " min";
    return m % 60 === 0 ? (m / 60) + " h" : Math.floor(m / 60) + " h " + (m % 60) + " min";
  }
  // Charts.swift's Chart.number: one decimal at most.
  function num(v) { return String(Math.round(v * 10) / 10); }

  // A workout in progress: its page's figures, curve and time in zone, redrawn from each
  // workout_progress as Charts.swift draws them (the charts carry their scales as data-*).
  function followWorkout(el) {
    const id = Number(el.dataset.liveWorkout);
    const SVG = "http://www.w3.org/2000/svg";
    const chart = document.querySelector("svg.hrchart");
    const rows = document.querySelector("svg.rows[data-plot]");
    function make(name, attrs, tooltip) {
      const node = document.createElementNS(SVG, name);
      for (const k in attrs) node.setAttribute(k, attrs[k]);
      if (tooltip != null) {
        const title = document.createElementNS(SVG, "title");
        title.textContent = tooltip;
        node.append(title);
      }
      return node;
    }

    let from = 0, to = 0, low = 0, high = 0, bounds = [], plot = [0, 0, 1, 1], points = [];
    // Readings up to this time are drawn already (events replayed since the page was made
    // may carry them again).
    let drawnUntil = -Infinity;
    if (chart) {
      const d = chart.dataset;
      from = Number(d.from); to = Number(d.to); low = Number(d.low); high = Number(d.high);
      if (d.latest) drawnUntil = Number(d.latest);
      bounds = (d.bounds || "").split(" ").filter(Boolean).map(Number);
      plot = d.plot.split(" ").map(Number); // left, top, right, bottom
      // The curve drawn by the server, back to (time, bpm): its points are at most 600.
      const line = chart.querySelector("polyline.hr");
      const text = line ? (line.getAttribute("points") || "").trim() : "";
      points = text ? text.split(/\s+/).map((pair) => {
        const [x, y] = pair.split(",").map(Number);
        return {
          at: from + (x - plot[0]) / (plot[2] - plot[0]) * Math.max(to - from, 1000),
          bpm: Math.round((low + (plot[3] - y) / (plot[3] - plot[1]) * (high - low)) * 10) / 10,
        };
      }) : [];
    }
    const x = (at) => plot[0] + (plot[2] - plot[0]) * (at - from) / Math.max(to - from, 1000);
    const y = (bpm) => plot[1] + (plot[3] - plot[1]) * (1 - (bpm - low) / (high - low));

    function add(at, bpm) {
      // In time order; a reading the page has already (an event replayed) is not added twice.
      if (at <= drawnUntil) return;
      let i = points.length;
      while (i > 0 && points[i - 1].at > at) i--;
      if (i > 0 && points[i - 1].at === at) return;
      points.splice(i, 0, { at: at, bpm: bpm });
      // As many points as the server draws at most, give or take: neighbours are averaged.
      if (points.length > 1200) {
        const fewer = [];
        for (let j = 0; j + 1 < points.length; j += 2) {
          fewer.push({ at: (points[j].at + points[j + 1].at) / 2, bpm: (points[j].bpm + points[j + 1].bpm) / 2 });
        }
        if (points.length % 2) fewer.push(points[points.length - 1]);
        points = fewer;
      }
    }

    // Zone bands and bpm ticks, for a new bpm range.
    function axes() {
      for (const old of chart.querySelectorAll("rect.band, text.band-label, text.tick")) old.remove();
      const before = chart.querySelector("desc").nextSibling;
      const edges = [low].concat(bounds.filter((b) => b > low && b < high), [high]);
      const firstZone = bounds.filter((b) => b <= low).length;
      for (let i = 0; i + 1 < edges.length; i++) {
        const zone = Math.min(5, firstZone + i);
        chart.insertBefore(make("rect", { class: "band z" + zone, x: num(plot[0]), y: num(y(edges[i + 1])), width: num(plot[2] - plot[0]),
          height: num(y(edges[i]) - y(edges[i + 1])) }, "Zone " + zone + ": " + Math.trunc(edges[i]) + "–" + Math.trunc(edges[i + 1]) + " bpm"), before);
        const label = make("text", { class: "label band-label", x: num(plot[0] + 4), y: num(y(edges[i + 1]) + 12) });
        label.textContent = "Z" + zone;
        chart.insertBefore(label, before);
      }
      for (let tick = low; tick <= high; tick += 20) {
        const label = make("text", { class: "label tick", x: "0", y: num(y(tick) + 4) });
        label.textContent = num(tick);
        chart.insertBefore(label, before);
      }
    }

    // Clock times under the curve, as Chart.timeTicks places them: at most six, on round minutes.
    function timeTicks() {
      for (const old of chart.querySelectorAll("text.time")) old.remove();
      const span = Math.max(to - from, 1000);
      const steps = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((m) => m * 60000);
      const step = steps.find((s) => span / s <= 6) || steps[steps.length - 1];
      const width = Number((chart.getAttribute("viewBox") || "0 0 720 0").split(" ")[2]);
      const ticks = [];
      for (let at = Math.ceil(from / step) * step; at <= from + span && ticks.length < 12; at += step) ticks.push(at);
      if (!ticks.length) ticks.push(from);
      for (const at of ticks) {
        if (x(at) > width - 18) continue;
        const label = make("text", { class: "label time", x: num(x(at)), y: num(plot[3] + 16), "text-anchor": "middle", "data-at": String(at) });
        label.textContent = localTime(new Date(at));
        chart.append(label);
      }
    }

    function drawCurve() {
      if (!chart || !points.length) return;
      to = Math.max(to, points[points.length - 1].at);
      const values = points.map((p) => p.bpm);
      const min = Math.min.apply(null, values), max = Math.max.apply(null, values);
      const newLow = Math.floor(Math.min(min, (bounds.length ? bounds[0] : 100) - 10) / 10) * 10;
      const newHigh = Math.ceil(Math.max(max, (bounds.length ? bounds[bounds.length - 1] : 170) + 10) / 10) * 10;
      if (newLow !== low || newHigh !== high) { low = newLow; high = newHigh; axes(); }
      let line = chart.querySelector("polyline.hr");
      if (!line) { line = make("polyline", { class: "hr" }); chart.append(line); }
      line.setAttribute("points", points.map((p) => num(x(p.at)) + "," + num(y(p.bpm))).join(" "));
      timeTicks();
      for (const mark of chart.querySelectorAll("[data-at]")) {
        const at = x(Number(mark.dataset.at));
        if (mark.tagName === "line") { mark.setAttribute("x1", num(at)); mark.setAttribute("x2", num(at)); }
        else mark.setAttribute("x", num(mark.classList.contains("time") ? at : at + 2));
      }
      const desc = chart.querySelector("desc");
      if (desc) {
        const avg = values.reduce((a, b) => a + b, 0) / values.length;
        const minutes = Math.floor(Math.max(to - from, 1000) / 60000), songs = chart.querySelectorAll("line.song").length;
        desc.textContent = "Heart rate over " + minutes + (minutes === 1 ? " minute" : " minutes") + ", from " + Math.trunc(min) + " to "
          + Math.trunc(max) + " bpm, " + Math.round(avg) + " on average; " + songs + (songs === 1 ? " song" : " songs") + " began during it.";
      }
    }

    function zoneBars(seconds) {
      if (!rows || !seconds) return;
      const [left, full] = rows.dataset.plot.split(" ").map(Number);
      const most = Math.max.apply(null, seconds.concat([1]));
      const bars = rows.querySelectorAll("rect"), values = rows.querySelectorAll("text.value");
      seconds.forEach((v, i) => {
        if (!bars[i] || !values[i]) return;
        const w = full * v / most;
        bars[i].setAttribute("width", num(Math.max(w, v > 0 ? 1 : 0)));
        const title = bars[i].querySelector("title");
        if (title) title.textContent = "Zone " + i + ": " + span(v);
        values[i].setAttribute("x", num(left + w + 6));
        values[i].textContent = span(v);
      });
      const desc = rows.querySelector("desc");
      if (desc) desc.textContent = seconds.map((v, i) => "Z" + i + " " + span(v)).join(", ");
    }

    return {
      id: id,
      progress(d) {
        if (d.id !== id) return;
        setText("[data-w-duration]", span(d.duration_s));
        setText("[data-w-avg]", d.hr_avg == null ? "–" : Math.round(d.hr_avg));
        setText("[data-w-max]", d.hr_max == null ? "–" : d.hr_max);
        zoneBars(d.time_in_zone_s);
        for (const s of d.samples || []) add(Date.parse(s.at), s.bpm);
        drawCurve();
      },
    };
  }
  const workoutView = workoutEl ? followWorkout(workoutEl) : null;

  // A planned workout (Pages+PlanLive.swift): the time left counts down here; the card is
  // made again by the server (read from the dashboard) when a segment ends, a button is
  // pressed anywhere (workout_changed), a workout starts or ends, and every 15 s (the chart's
  // line at now). Heart rate updates "now"; 20 s without it, the card says so.
  let planLeft = null; // {remaining (s), at (ms), paused}
  // A card that says no heart rate is coming in is believed until a reading comes.
  const silentAtLoad = $("[data-plan-sensors]") && !$("[data-plan-sensors]").hidden;
  let lastBeat = silentAtLoad ? 0 : Date.now();
  function readPlanCard() {
    const card = $("[data-plan-live]");
    planLeft = card && card.dataset.remaining ? { remaining: Number(card.dataset.remaining), at: Date.now(), paused: !!card.dataset.paused } : null;
  }
  let planFetch = null;
  function refreshPlanCard() {
    // Only the dashboard has the card (a workout's own page reloads when it ends).
    if (!nowCard || planFetch) return;
    planFetch = fetch(base + "/", { credentials: "same-origin", headers: { Accept: "text/html" } })
      // A login page (a session that ended) or any other page is no dashboard: nothing changes.
      .then((r) => (r.ok && !r.redirected ? r.text() : null))
      .then((html) => {
        if (!html) return;
        const doc = new DOMParser().parseFromString(html, "text/html");
        if (!doc.querySelector("body[data-live] [data-player]")) return;
        const fresh = doc.querySelector("[data-plan-live], .plan-start");
        const now = $("[data-plan-live]") || $(".plan-start");
        const grid = $("main .grid");
        if (now && fresh) now.replaceWith(document.importNode(fresh, true));
        else if (now) now.remove();
        else if (fresh && grid) grid.before(document.importNode(fresh, true));
        readPlanCard();
        if (Date.now() - lastBeat < 20000) { const n = $("[data-plan-sensors]"); if (n) n.hidden = true; }
      })
      .catch(() => {})
      .finally(() => { planFetch = null; });
  }
  function planTick() {
    if (!planLeft || planLeft.paused) return;
    const left = planLeft.remaining - (Date.now() - planLeft.at) / 1000;
    setText("[data-plan-left]", clock(left));
    if (left <= 0) { planLeft = null; setTimeout(refreshPlanCard, 600); }
  }
  readPlanCard();
  if (nowCard) {
    setInterval(planTick, 1000);
    setInterval(() => { if ($("[data-plan-live]")) refreshPlanCard(); }, 15000);
    setInterval(() => {
      const n = $("[data-plan-sensors]");
      if (n && Date.now() - lastBeat > 20000) n.hidden = false;
    }, 2000);
  }
  function planHeartRate(bpm, zone) {
    lastBeat = Date.now();
    setText("[data-plan-now]", Math.round(bpm) + " bpm (Z" + zone + ")");
    const n = $("[data-plan-sensors]");
    if (n) n.hidden = true;
  }

  function on(name, handler) {
    source.addEventListener(name, (e) => {
      if (e.lastEventId) lastEventID = e.lastEventId;
      try { handler(JSON.parse(e.data)); } catch (err) { /* a malformed event is skipped */ }
    });
  }

  function connect() {
    // Reopened by hand (below), a stream would start from now: it asks for what it missed.
    source = new EventSource(base + "/api/v1/events" + (lastEventID ? "?last_event_id=" + encodeURIComponent(lastEventID) : ""));
    source.onopen = () => { retry = 1000; setStatus("on", "live"); };
    source.onerror = () => {
      // EventSource retries by itself while CONNECTING; once CLOSED (an HTTP error, a
      // restart) it is reopened here, waiting longer each time up to half a minute.
      if (source.readyState === EventSource.CLOSED) {
        setStatus("off", "reconnecting…");
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 30000);
      } else {
        setStatus("off", "reconnecting…");
      }
    };
    on("now_playing", (d) => { if (!player || d.player === player) { showNowPlaying(d.now_playing); refreshSuggestion(); } });
    // /player: each MPD's card names what it plays.
    on("now_playing", (d) => {
      document.querySelectorAll("[data-player-title]").forEach((el) => {
        if (el.dataset.playerTitle === d.player) el.textContent = d.now_playing ? d.now_playing.track.title : "Nothing is playing";
      });
      document.querySelectorAll("[data-player-artist]").forEach((el) => {
        if (el.dataset.playerArtist === d.player) el.textContent = d.now_playing ? (d.now_playing.track.artist || "") : "";
      });
    });
    on("player", (d) => {
      if (player && d.name !== player) return;
      mpdDown = !d.connected && !!d.error;
      if (downNotice) {
        downNotice.hidden = !mpdDown;
        setText("[data-mpd-error]", mpdDown ? "MPD at " + d.endpoint + " is not reachable: " + d.error : "");
      }
      // Down: the card says so; back: "Nothing is playing" until MPD says what plays.
      if (mpdDown || !position) showNowPlaying(null);
      refreshSuggestion();
    });
    on("heart_rate", (d) => { showHeartRate(d.bpm, d.zone); planHeartRate(d.bpm, d.zone); });
    on("workout_changed", refreshPlanCard);
    on("zone_changed", (d) => {
      const z = $("[data-hr-zone]");
      if (z) { z.className = "zone z" + d.to; z.textContent = "Zone " + d.to; }
      refreshSuggestion();
    });
    on("play_logged", addPlay);
    // The cadence the music follows moved (cadence mode, a target, the runner's stride): the
    // card shows it and the suggestions are found again.
    on("cadence_changed", (d) => {
      setText("[data-cadence-following]", String(Math.round(d.following)));
      if (d.live) setText("[data-cadence-live]", Math.round(d.live.steps_per_min) + " steps/min");
      const card = $("[data-cadence-mode]");
      if (card) card.dataset.cadenceMode = d.mode;
      const src = $("[data-cadence-source]");
      if (src) src.dataset.cadenceSource = d.source;
      refreshSuggestion();
    });
    // A player's controls changed (here, on another page, or from another MPD client): every
    // card of that player shows its state, volume and modes.
    on("player_state", (d) => {
      document.querySelectorAll("[data-controls]").forEach((box) => {
        if (box.dataset.controls !== d.player) return;
        box.dataset.state = d.state;
        const words = { play: "Playing", pause: "Paused", stop: "Stopped" };
        const put = (sel, text) => { const el = box.querySelector(sel); if (el) el.textContent = text; };
        put("[data-control-state]", words[d.state] || d.state);
        put("[data-volume]", d.volume === null ? "fixed" : d.volume + " %");
        put("[data-queue-length]", d.queue_length + (d.queue_length === 1 ? " song" : " songs"));
        const toggle = box.querySelector("[data-control=toggle]");
        if (toggle) {
          toggle.textContent = d.state === "play" ? "Pause" : "Play";
          toggle.setAttribute("aria-label", d.state === "play" ? "Pause" : "Play");
          toggle.title = toggle.getAttribute("aria-label");
        }
        box.querySelectorAll("[data-control^=volume]").forEach((b) => { b.disabled = d.volume === null; });
        const problem = box.querySelector("[data-control-error]");
        if (problem) { problem.hidden = !d.error; problem.textContent = d.error ? "MPD: " + d.error : ""; }
        const modes = { random: d.random, repeat: d.repeat, single: d.single !== "off", consume: d.consume };
        box.querySelectorAll("[data-mode]").forEach((b) => b.setAttribute("aria-pressed", modes[b.dataset.mode] ? "true" : "false"));
      });
    });
    // The history was corrected (a play deleted or edited, a merge, an undo): every figure
    // on the page may have changed, and the server has them right: load it again.
    on("curated", () => window.location.reload());
    on("workout_started", (d) => { workout(d.id, true); refreshPlanCard(); });
    on("workout_ended", (d) => {
      // The workout this page follows ended: the page is made again with its final figures.
      if (workoutView && d.id === workoutView.id) { window.location.reload(); return; }
      workout(d.id, false);
      refreshPlanCard();
    });
    if (workoutView) on("workout_progress", (d) => workoutView.progress(d));
  }

  const bar = $("[data-np-progress]");
  if (bar) {
    const state = ($("[data-np-state]") || {}).dataset || {};
    position = { elapsed: Number(bar.value) || 0, duration: Number(bar.max) || 0, at: Date.now(), playing: state.npState === "play" };
    if (state.npState === "stop") position = null;
  }
  setInterval(tick, 1000);
  connect();
  // The server was still reading the history for suggestions: ask again shortly.
  if ($("[data-next-pending]")) setTimeout(refreshSuggestion, 3000);
  else if ($("[data-next]") && !$("[data-next] li")) retryWhileEmpty();
})();
