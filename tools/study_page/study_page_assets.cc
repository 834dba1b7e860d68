// The live study page's markup, style and script; see the header.
#include "tools/study_page/study_page_assets.h"

namespace ldp {

const std::string_view kStudyPageHtml = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>LDP Aggregator: studies</title>
<link rel="stylesheet" href="/page.css">
<script src="/page.js" defer></script>
</head>
<body data-state="login">
<header>
<h1>LDP Aggregator: studies</h1>
<p>Read-only. Every estimate is ε-locally private and shown with its
interval or simultaneous band; open rounds are interim.</p>
</header>
<form id="login" hidden>
<label for="token">Analyst token (ldp-server's &lt;db&gt;.analyst_token)</label>
<input id="token" type="password" autocomplete="off" required>
<button type="submit">Show studies</button>
</form>
<p id="status" role="status"></p>
<main id="studies"></main>
</body>
</html>
)html";

const std::string_view kStudyPageStyle = R"css(
body { font-family: sans-serif; margin: 1.5em auto; max-width: 960px; color: #222; }
header p, .polled { color: #555; }
section.study { border-top: 2px solid #08519c; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { text-align: left; padding: 0.2em 0.8em 0.2em 0; }
td[data-field] { font-variant-numeric: tabular-nums; }
figure.chart { margin: 0.5em 0; }
figure.chart svg { max-width: 100%; height: auto; }
.problem, #status { color: #a50f15; }
form { margin: 1em 0; }
input { width: 24em; }
)css";

const std::string_view kStudyPageScript = R"js('use strict';
(function () {
  const KEY = 'ldp-analyst-token';
  const REFRESH_MS = 2000;
  const form = document.getElementById('login');
  const input = document.getElementById('token');
  const status = document.getElementById('status');
  const studies = document.getElementById('studies');
  let timer = null;

  // The fragment part of an address never reaches a server; take the token
  // once and drop it from the address bar.
  function takeTokenFromAddress() {
    const match = /^#token=([^&]+)$/.exec(window.location.hash);
    if (!match) return;
    sessionStorage.setItem(KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', window.location.pathname);
  }

  function ask(message) {
    document.body.dataset.state = 'login';
    studies.textContent = '';
    status.textContent = message;
    form.hidden = false;
    input.focus();
  }

  async function refresh() {
    clearTimeout(timer);
    const token = sessionStorage.getItem(KEY);
    if (!token) return ask('');
    try {
      const response = await fetch('/api/fragment', {
        headers: { Authorization: 'Bearer ' + token }, cache: 'no-store' });
      if (response.status === 401) {
        sessionStorage.removeItem(KEY);
        return ask('The token was refused: use the analyst token of this server.');
      }
      if (!response.ok) throw new Error('HTTP ' + response.status);
      studies.innerHTML = await response.text();
      form.hidden = true;
      status.textContent = '';
      document.body.dataset.state = 'live';
    } catch (error) {
      document.body.dataset.state = 'offline';
      status.textContent = 'The page server does not answer (' + error.message +
          '); retrying.';
    }
    timer = setTimeout(refresh, REFRESH_MS);
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    sessionStorage.setItem(KEY, input.value.trim());
    input.value = '';
    refresh();
  });
  takeTokenFromAddress();
  refresh();
})();
)js";

}  // namespace ldp
