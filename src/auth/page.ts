import { createHash } from 'node:crypto';

/**
 * The server's own pages (consent, disconnect, errors): plain HTML with one inline style sheet, no
 * script, no third-party asset, and headers that keep them out of frames and caches.
 */

const STYLE = `
:root{color-scheme:light dark;font:16px/1.45 system-ui,sans-serif}
body{max-width:34rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.35rem;margin:0 0 .5rem}
fieldset{border:1px solid #8886;border-radius:.5rem;margin:1rem 0;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
label{display:block;margin:.4rem 0}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.45rem;font:inherit}
.hint{font-size:.85rem;opacity:.8;margin:.2rem 0 .6rem}
.warn{border-left:4px solid #c77700;padding:.4rem .75rem;background:#c7770018}
.error{border-left:4px solid #c62828;padding:.4rem .75rem;background:#c6282818}
.buttons{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;padding:.55rem 1.2rem;border-radius:.4rem;border:1px solid #8888;cursor:pointer}
button.primary{background:#1f5fbf;color:#fff;border-color:#1f5fbf}
code{word-break:break-all}
`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** Text for HTML: every character that could open markup or end an attribute is escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Security headers of every page; `formTargets` are the origins a form on it may lead to (its POST, then the redirect). */
export function pageHeaders(formTargets: string[] = []): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': [
      "default-src 'none'",
      `style-src ${STYLE_HASH}`,
      `form-action 'self'${formTargets.map((origin) => ` ${origin}`).join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin', // no-referrer would make browsers send Origin: null with the form
  };
}

/** A whole page around `body` (already escaped HTML). */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}
