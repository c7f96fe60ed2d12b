// The browser side of the view tests: Debian's headless Chromium driven by playwright-core (nothing is
// downloaded from elsewhere), a test host page built on the extension's AppBridge (views/test-host.ts),
// and the server with the sandbox behind it through the test harness.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect } from 'vitest';
import { realClock } from '../../src/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connect, type Harness } from '../helpers.js';

export const CHROMIUM = '/usr/bin/chromium';
const REQUIRED = process.env.REQUIRE_BROWSER_TESTS === '1';
export const browserAvailable = existsSync(CHROMIUM);
if (REQUIRED && !browserAvailable) throw new Error(`REQUIRE_BROWSER_TESTS=1 but ${CHROMIUM} is missing: apt-get install chromium`);

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** What a host that shows views declares. */
export const UI_CAPABILITIES = { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } } as never;

/** The test host's page: served by the test itself, the only URL the page may load. */
const HOST_URL = 'http://host.test/';
/** A chat column's width. */
export const CHAT_WIDTH = 420;

type Browser = import('playwright-core').Browser;
type Page = import('playwright-core').Page;
type FrameLocator = import('playwright-core').FrameLocator;
export type Theme = 'light' | 'dark';

export interface Browsing {
  browser: Browser;
  hostScript: string;
  close(): Promise<void>;
}

/** The views built and the host page bundled once per test file, however many browsers it starts. */
let prepared: Promise<string> | undefined;

async function prepare(): Promise<string> {
  const { buildViews } = await import('../../scripts/build-views.mjs');
  await buildViews();
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('../../views/test-host.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    minify: true,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}

/** Builds the views and the host page's script (once), and starts Chromium. */
export async function startBrowser(): Promise<Browsing> {
  const hostScript = await (prepared ??= prepare());
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  return { browser, hostScript, close: () => browser.close() };
}

export interface HostPage {
  page: Page;
  harness: Harness;
  /** Every URL the page or its frames asked for. */
  requested: string[];
  /** POST requests the sandbox received: what was sent to the service. */
  posts(): number;
  /** Opens `tool`'s view as a host would: tools/list names it, resources/read gives it, tools/call fills it. */
  open(tool: string, args: Record<string, unknown>, options?: OpenOptions): Promise<Opened>;
  /** Writes docs/views/NAME-THEME.png: the first frame as the person sees it. */
  screenshot(name: string, theme: Theme): Promise<void>;
  /** Closes the page and the server, and checks that nothing but the host page was requested. */
  close(): Promise<void>;
}

export interface OpenOptions {
  copies?: number;
  theme?: Theme;
  variables?: Record<string, string>;
}

export interface Opened {
  result: Awaited<ReturnType<Harness['client']['callTool']>>;
  frames: FrameLocator[];
}

/** Chromium paints a frame only within the viewport: tall enough for the longest view's picture. */
const VIEWPORT_HEIGHT = 2_400;

/**
 * A server whose tools tell time by the sandbox's clock, which stands still at its start (2026-11-02
 * 09:00 UTC): the same dates and expiry in every run, so the pictures change only with the views.
 */
export async function viewHarness(given?: Sandbox): Promise<Harness> {
  const sandbox = given ?? (await startSandbox({ control: true }));
  const harness = await connect({ sandbox, capabilities: UI_CAPABILITIES, clock: { now: () => sandbox.clock.now(), sleep: realClock.sleep } });
  // A sandbox the caller gave stays the caller's to close.
  return given ? harness : { ...harness, close: async () => { await harness.close(); await sandbox.close(); } };
}

/** A fresh server (sandbox behind it) and a host page in its own browser context, in UTC. */
export async function hostPage(browsing: Browsing, options: { harness?: Harness; theme?: Theme } = {}): Promise<HostPage> {
  const harness = options.harness ?? (await viewHarness());
  const context = await browsing.browser.newContext({
    timezoneId: 'UTC',
    locale: 'en-US',
    viewport: { width: CHAT_WIDTH, height: VIEWPORT_HEIGHT },
    colorScheme: options.theme ?? 'light',
  });
  const page = await context.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.route('**/*', (route) =>
    route.request().url() === HOST_URL
      ? route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><body><script>${browsing.hostScript.replace(/<\/script/gi, '<\\/script')}</script></body></html>` })
      : route.abort(),
  );
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments: Record<string, unknown> }) => harness.client.callTool(params));
  await page.goto(HOST_URL);
  return {
    page,
    harness,
    requested,
    posts: () => harness.sandbox.requests.filter((request) => request.method === 'POST').length,
    async open(tool, args, { copies = 1, theme = 'light', variables } = {}) {
      const { tools } = await harness.client.listTools();
      const described = tools.find((candidate) => candidate.name === tool);
      expect(described, `${tool} in tools/list`).toBeDefined();
      const uri = (described!._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      expect(uri, `${tool}'s _meta.ui.resourceUri`).toMatch(/^ui:\/\//);
      const resource = await harness.client.readResource({ uri: uri! });
      const html = (resource.contents[0] as { text: string }).text;
      const result = await harness.client.callTool({ name: tool, arguments: args });
      for (let copy = 0; copy < copies; copy += 1) {
        await page.evaluate((opening) => (globalThis as unknown as { openView(opening: unknown): Promise<void> }).openView(opening), {
          html,
          tool: described,
          arguments: args,
          result,
          theme,
          variables,
          width: CHAT_WIDTH,
        });
      }
      return { result, frames: [...Array(copies).keys()].map((index) => page.frameLocator('iframe').nth(index)) };
    },
    async screenshot(name, theme) {
      const directory = fileURLToPath(new URL('../../docs/views/', import.meta.url));
      mkdirSync(directory, { recursive: true });
      // The frame's height follows the view's size report; two animation frames let it settle.
      await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
      await page.locator('iframe').first().screenshot({ path: `${directory}${name}-${theme}.png`, animations: 'disabled' });
    },
    async close() {
      await context.close();
      await harness.close();
      // Nothing but the host page itself: each view's script, style and data are all inside it.
      expect(requested.filter((url) => url !== HOST_URL)).toEqual([]);
    },
  };
}

/** The view's frame as a Playwright Frame (to evaluate in it), the n-th one opened. */
export function frameOf(page: Page, index = 0) {
  const frames = page.frames().filter((candidate) => candidate !== page.mainFrame());
  return frames[index]!;
}
