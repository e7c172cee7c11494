// Live dashboard: follows /api/v1/events (Server-Sent Events) and updates now playing,
// heart rate, zone and today's plays without reloading. The page works without it.
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
  let source = null;
  let retry = 1000;

  function setText(sel, text) {
    const el = $(sel);
    if (el) el.textContent = text == null ? "" : String(text);
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
      setText("[data-np-title]", "Nothing is playing");
      setText("[data-np-artist]", "");
      setText("[data-np-album]", "");
      setText("[data-np-state]", "Stopped");
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

  // The suggestion follows the song and the zone: asked again when either changes.
  let nextTimer = null;
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
            list.append(li);
          }
          const empty = $("[data-next-empty]");
          if (empty) empty.hidden = (data.suggestions || []).length > 0;
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

  function on(name, handler) {
    source.addEventListener(name, (e) => {
      try { handler(JSON.parse(e.data)); } catch (err) { /* a malformed event is skipped */ }
    });
  }

  function connect() {
    source = new EventSource(base + "/api/v1/events");
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
    on("heart_rate", (d) => showHeartRate(d.bpm, d.zone));
    on("zone_changed", (d) => {
      const z = $("[data-hr-zone]");
      if (z) { z.className = "zone z" + d.to; z.textContent = "Zone " + d.to; }
      refreshSuggestion();
    });
    on("play_logged", addPlay);
    // The history was corrected (a play deleted or edited, a merge, an undo): every figure
    // on the page may have changed, and the server has them right: load it again.
    on("curated", () => window.location.reload());
    on("workout_started", (d) => workout(d.id, true));
    on("workout_ended", (d) => workout(d.id, false));
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
})();
