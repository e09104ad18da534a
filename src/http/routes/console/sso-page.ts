// The pages single sign-on answers with in the browser: a refusal or a failed sign-in is a page (not JSON), saying
// what happened and naming the request, so a person can quote it to an operator. The console's CSP applies: no
// inline style or script, only the console's own stylesheet.

const html = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function ssoPage(title: string, message: string, requestId: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)} · Tollway console</title>
<link rel="stylesheet" href="/console/app.css">
</head>
<body>
<main class="signin sso-page">
<h1>${html(title)}</h1>
<p id="sso-message">${html(message)}</p>
<p>Request id: <code id="request-id">${html(requestId)}</code></p>
<p><a href="/console/">Back to the console's sign-in</a></p>
</main>
</body>
</html>
`;
}
