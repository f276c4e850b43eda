// Arbiter dashboard: keyboard shortcuts and live updates. The pages work without it.
(function () {
  'use strict';

  var current = -1;

  // Opened as a Telegram Mini App without a session: Telegram puts its signed launch data in the URL fragment
  // (tgWebAppData); post it to /auth/telegram, which checks the signature with the bot token.
  var miniapp = document.getElementById('miniapp');
  if (miniapp && location.hash.indexOf('tgWebAppData=') !== -1) {
    var launch = new URLSearchParams(location.hash.slice(1));
    var data = launch.get('tgWebAppData');
    if (data) {
      miniapp.querySelector('input[name="initData"]').value = data;
      miniapp.submit();
    }
  }

  function items() { return Array.prototype.slice.call(document.querySelectorAll('[data-item]')); }

  function typing(el) {
    return el && (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' ||
      (el.tagName === 'INPUT' && el.type !== 'checkbox' && el.type !== 'radio'));
  }

  function move(step) {
    var list = items();
    if (!list.length) { return; }
    current = Math.max(0, Math.min(list.length - 1, current + step));
    list.forEach(function (el, i) { el.classList.toggle('current', i === current); });
    list[current].scrollIntoView({ block: 'nearest' });
  }

  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(document.activeElement)) { return; }
    var list = items();
    var item = list[current] || list[0];
    if (e.key === 'j') { move(1); } else if (e.key === 'k') { move(-1); }
    else if (e.key >= '1' && e.key <= '9' && item) {
      var option = item.querySelector('[data-key="' + e.key + '"]');
      if (option) { option.click(); }
    } else if (e.key === 's') {
      var submit = document.querySelector('[data-submit]:not([disabled])');
      if (submit) { submit.click(); }
    } else if ((e.key === 'Enter' || e.key === 'o') && item && item.dataset.href) {
      window.location.href = item.dataset.href;
    } else { return; }
    e.preventDefault();
  });

  // An edit decision: the diff of the textarea against the proposal, redrawn as the owner types (the server
  // draws the same diff for a recorded edit; without this script the page still posts the edited text).
  function lineDiff(a, b) {
    var n = a.length, m = b.length, out = [];
    if ((n + 1) * (m + 1) > 4000000) {
      a.forEach(function (l) { out.push(['-', l]); });
      b.forEach(function (l) { out.push(['+', l]); });
      return out;
    }
    var lcs = [];
    for (var i = n; i >= 0; i--) {
      lcs[i] = [];
      for (var j = m; j >= 0; j--) {
        lcs[i][j] = (i === n || j === m) ? 0 : (a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]));
      }
    }
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) { out.push([' ', a[i]]); i++; j++; }
      else if (j === m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) { out.push(['-', a[i]]); i++; }
      else { out.push(['+', b[j]]); j++; }
    }
    return out;
  }

  function drawDiff(area) {
    var pre = area.parentNode.querySelector('[data-diff]');
    if (!pre) { return; }
    var proposal = area.dataset.proposal;
    pre.textContent = '';
    if (area.value === proposal) { return; }
    lineDiff(proposal.split('\n'), area.value.split('\n')).forEach(function (d) {
      var el = document.createElement(d[0] === '-' ? 'del' : d[0] === '+' ? 'ins' : 'span');
      el.textContent = (d[0] === ' ' ? ' ' : d[0]) + ' ' + d[1] + '\n';
      pre.appendChild(el);
    });
  }

  document.addEventListener('input', function (e) {
    if (e.target.matches && e.target.matches('textarea[data-proposal]')) { drawDiff(e.target); }
  });

  // Live update: on a change, fetch this page again and swap the live region, unless the owner is typing.
  var live = document.getElementById('live');
  if (!live || !window.EventSource) { return; }

  function busy() {
    var texts = live.querySelectorAll('input[type=text], input[type=number], input[type=email], input[type=url], input[type=date], input[type=datetime-local], textarea:not([data-proposal])');
    for (var i = 0; i < texts.length; i++) { if (texts[i].value) { return true; } }
    return typing(document.activeElement) && live.contains(document.activeElement);
  }

  function banner() {
    if (document.getElementById('live-banner')) { return; }
    var b = document.createElement('button');
    b.id = 'live-banner';
    b.className = 'primary';
    b.textContent = 'This page changed: reload';
    b.addEventListener('click', function () { window.location.reload(); });
    document.body.appendChild(b);
  }

  // A form being sent (or the page being left) must not have its page swapped under it.
  var leaving = false;
  document.addEventListener('submit', function () { leaving = true; }, true);
  window.addEventListener('beforeunload', function () { leaving = true; });

  function refresh() {
    if (leaving) { return; }
    if (busy()) { banner(); return; }
    fetch(window.location.href, { credentials: 'same-origin' }).then(function (r) { return r.text(); }).then(function (text) {
      if (leaving) { return; }
      var doc = new DOMParser().parseFromString(text, 'text/html');
      var fresh = doc.getElementById('live');
      var checked = Array.prototype.map.call(live.querySelectorAll('input[type=checkbox]:checked'), function (c) { return c.value; });
      if (fresh) {
        live.innerHTML = fresh.innerHTML;
        live.querySelectorAll('input[type=checkbox]').forEach(function (c) { if (checked.indexOf(c.value) >= 0) { c.checked = true; } });
      } else {
        document.querySelector('main').innerHTML = doc.querySelector('main').innerHTML;
      }
      current = -1;
      document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
    });
  }

  var events = new EventSource('/events');
  events.addEventListener('open', function () { document.body.dataset.sse = 'open'; });
  events.addEventListener('change', refresh);
  // Close the stream as the page goes: browsers allow only a few connections per server, and a stream left
  // open by a page being left would hold one until it times out.
  window.addEventListener('pagehide', function () { events.close(); });
  window.addEventListener('beforeunload', function () { events.close(); });
  document.addEventListener('submit', function () { events.close(); }, true);
})();
