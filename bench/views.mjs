// The MCP Apps views as a host receives them (issue 27): each page's size, and the time from loading
// it into a sandboxed frame until its content is on screen, in Debian's headless Chromium. The host
// is the tests' strict one (views/test-host.ts: no toolInfo, no tool input), the results real ones
// from the built server with --sandbox over stdio. `npm run bench:full` runs it; alone:
// `npm run bench:views`. Prints a Markdown table; skips when Chromium is missing.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { connectStdio } from './mcp.mjs';
import { summarize } from './stats.mjs';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = Number(process.env.BENCH_VIEW_RUNS ?? 15);
const HOST_URL = 'http://host.test/';
const root = new URL('..', import.meta.url);

/** Each view with the call that fills it and what shows its content: the sandbox's own data. */
const OPENINGS = [
  { view: 'confirmation-card', tool: 'create_ad_campaign', args: { app_id: 'app_demo', campaign_name: 'Bench', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' }, shown: '.approve' },
  { view: 'campaigns', tool: 'list_ad_campaigns', args: { app_id: 'app_demo', include_metrics: true }, shown: 'table.campaigns' },
  { view: 'suggestions', tool: 'list_campaign_suggestions', args: { app_id: 'app_demo', campaign_id: 'cmp_demo' }, shown: '.suggestion' },
  { view: 'social-calendar', tool: 'list_social_posts', args: { app_id: 'app_demo' }, shown: '.week .day' },
];

/** A page with one line and a script that marks it shown at its first frame, as the views mark their content. */
const FLOOR_PAGE = '<!doctype html><html><body><p>One line.</p><script>requestAnimationFrame(() => performance.mark("app-management/content"))</script></body></html>';

/** Sizes in bytes and milliseconds to content (median and worst of RUNS) per view, or `skipped` with the reason. */
export async function measureViews({ log = () => {} } = {}) {
  const sizes = Object.fromEntries(OPENINGS.map(({ view }) => [view, Buffer.byteLength(readFileSync(new URL(`dist/${view}.view.html`, root)))]));
  if (!existsSync(CHROMIUM)) return { sizes, skipped: `${CHROMIUM} is missing` };
  const hostScript = (
    await build({ entryPoints: [fileURLToPath(new URL('views/test-host.ts', root))], bundle: true, write: false, format: 'iife', platform: 'browser', minify: true, logLevel: 'silent' })
  ).outputFiles[0].text;
  const server = await connectStdio({ command: process.execPath, args: [fileURLToPath(new URL('dist/index.js', root)), '--sandbox'], env: { ...process.env, APPMGMT_LOG_LEVEL: 'error' } });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    const { tools } = await server.client.listTools();
    const page = await browser.newPage({ viewport: { width: 760, height: 1200 } });
    await page.route('**/*', (route) =>
      route.request().url() === HOST_URL ? route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><body><script>${hostScript.replace(/<\/script/gi, '<\\/script')}</script></body></html>` }) : route.abort(),
    );
    await page.exposeFunction('hostCallTool', (params) => server.client.callTool(params));
    await page.goto(HOST_URL);
    const times = {};
    for (const { view, tool, args, shown } of OPENINGS) {
      log(`view ${view}: ${RUNS} loads`);
      const described = tools.find((candidate) => candidate.name === tool);
      const html = (await server.client.readResource({ uri: described._meta.ui.resourceUri })).contents[0].text;
      const result = await server.client.callTool({ name: tool, arguments: args });
      const runs = [];
      for (let run = 0; run < RUNS; run += 1) {
        await page.evaluate('document.querySelectorAll("iframe").forEach((frame) => frame.remove()); window.opened = [];');
        await page.evaluate((opening) => globalThis.openView(opening), { html, tool: described, arguments: args, result, host: 'strict', theme: 'light', width: 420 });
        const frame = page.frames().find((candidate) => candidate !== page.mainFrame() && !candidate.isDetached());
        // The frame's own clock: milliseconds from the start of loading the page to the frame that first
        // shows the result (the view's User Timing mark, views/shared/app.ts), with the content there.
        await frame.locator(shown).first().waitFor();
        const at = await frame.waitForFunction(() => performance.getEntriesByName('app-management/content')[0]?.startTime);
        runs.push(await at.jsonValue());
      }
      const summary = summarize(runs);
      times[view] = { medianMs: Math.round(summary.median), worstMs: Math.round(summary.max) };
    }
    // The floor on this machine: a page that speaks to no host and marks its one line as shown at its
    // first frame, loaded into the same kind of frame. What a view takes beyond it is its own.
    const floor = [];
    for (let run = 0; run < RUNS; run += 1) {
      await page.evaluate((html) => {
        document.querySelectorAll('iframe').forEach((frame) => frame.remove());
        const frame = document.createElement('iframe');
        frame.setAttribute('sandbox', 'allow-scripts');
        document.body.append(frame);
        frame.srcdoc = html;
      }, FLOOR_PAGE);
      await page.waitForFunction(() => document.querySelector('iframe')?.contentWindow);
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame() && !candidate.isDetached() && candidate.url() === 'about:srcdoc');
      const at = await (frame ?? page.frames().at(-1)).waitForFunction(() => performance.getEntriesByName('app-management/content')[0]?.startTime);
      floor.push(await at.jsonValue());
    }
    const summary = summarize(floor);
    times.floor = { medianMs: Math.round(summary.median), worstMs: Math.round(summary.max) };
    return { sizes, times, runs: RUNS };
  } finally {
    await browser.close();
    await server.close();
  }
}

/** The views as a Markdown table. */
export function viewsTable(views) {
  const lines = ['### MCP Apps views (readable HTML, headless Chromium)', '', '| view | page | content on screen, median | worst |', '|---|---|---|---|'];
  for (const [view, bytes] of Object.entries(views.sizes)) {
    const time = views.times?.[view];
    lines.push(`| ${view} | ${(bytes / 1024).toFixed(1)} KiB | ${time ? `${time.medianMs} ms` : views.skipped} | ${time ? `${time.worstMs} ms` : ''} |`);
  }
  const floor = views.times?.floor;
  if (floor) lines.push(`| (floor: a one-line page, no host) | | ${floor.medianMs} ms | ${floor.worstMs} ms |`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const views = await measureViews({ log: (message) => process.stderr.write(`bench: ${message}\n`) });
  process.stdout.write(`${viewsTable(views)}\n`);
}
