// The pages single sign-on answers with in the browser: a refusal or a failed sign-in is a page (not JSON), saying
// what happened and naming the request, so a person can quote it to an operator. The console's CSP applies: no
// inline style or script, only the console's own stylesheet.

const html = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A link the page offers (an account to sign in to, the way back). */
export interface PageLink {
  href: string;
  text: string;
}

const CONSOLE_BACK: PageLink = { href: '/console/', text: "Back to the console's sign-in" };

export function ssoPage(
  title: string,
  message: string,
  requestId: string,
  opts: { links?: readonly PageLink[]; back?: PageLink } = {},
): string {
  const links = (opts.links ?? []).map((l) => `<li><a href="${html(l.href)}">${html(l.text)}</a></li>`).join('\n');
  const back = opts.back ?? CONSOLE_BACK;
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
${links ? `<ul id="sso-choices">\n${links}\n</ul>\n` : ''}<p>Request id: <code id="request-id">${html(requestId)}</code></p>
<p><a href="${html(back.href)}">${html(back.text)}</a></p>
</main>
</body>
</html>
`;
}
