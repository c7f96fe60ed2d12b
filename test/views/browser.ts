// The browser side of the view tests: Debian's headless Chromium driven by playwright-core (nothing is
// downloaded from elsewhere), a test host page built on the extension's AppBridge (views/test-host.ts),
// and the server with the sandbox behind it through the test harness.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { realClock } from '../../src/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { connect, type Harness } from '../helpers.js';
import { docFigures } from '../docs/markdown.js';

export const CHROMIUM = '/usr/bin/chromium';
const REQUIRED = process.env.REQUIRE_BROWSER_TESTS === '1';
export const browserAvailable = existsSync(CHROMIUM);
if (REQUIRED && !browserAvailable) throw new Error(`REQUIRE_BROWSER_TESTS=1 but ${CHROMIUM} is missing: apt-get install chromium`);

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** What a host that shows views declares. */
export const UI_CAPABILITIES: ClientCapabilities = { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** The test host's page: served by the test itself, the only URL the page may load. */
const HOST_URL = 'http://host.test/';
/** A chat column's width. */
export const CHAT_WIDTH = 420;
/**
 * The narrowest chat column a view must fit without cutting anything off (a phone), and a wide one
 * (a side panel at full size): docs/views.md's widths, read from it so the doc and the tests agree.
 */
export const [NARROW_WIDTH, WIDE_WIDTH] = docFigures('docs/views.md', /in light and dark, at (\d+) and (\d+) px, [^.]*; at \1 px no element is wider than the frame \(each view's test\)/) as [number, number];
/** A host that gives a view little height (containerDimensions.maxHeight), as an inline frame on a small screen: docs/views.md's. */
export const [SHORT_HEIGHT] = docFigures('docs/views.md', /Each view's test opens it in a host that gives (\d+) px at chat width/) as [number];

/** axe-core, injected into each view's frame to check it (test/views/*.test.ts). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The rules of WCAG 2.2 at levels A and AA, contrast included. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * A host's full set of colour variables, light and dark, as a host hands them over (values in the
 * spirit of the spec's example: light-dark() pairs), for checking a view's contrast with host variables.
 */
export const HOST_VARIABLES: Record<string, string> = {
  '--color-background-primary': 'light-dark(#ffffff, #262624)',
  '--color-background-secondary': 'light-dark(#f5f4ef, #30302e)',
  '--color-background-inverse': 'light-dark(#141413, #faf9f5)',
  '--color-text-primary': 'light-dark(#141413, #faf9f5)',
  '--color-text-secondary': 'light-dark(#5e5d59, #c2c0b6)',
  '--color-text-inverse': 'light-dark(#faf9f5, #141413)',
  '--color-text-danger': 'light-dark(#b3261e, #ff8a80)',
  '--color-text-success': 'light-dark(#1e6b34, #7bd88f)',
  '--color-text-warning': 'light-dark(#7a5200, #f2c14e)',
  '--color-text-info': 'light-dark(#1a5fb4, #8ab4f8)',
  '--color-border-primary': 'light-dark(#8a8983, #8f8d85)',
  '--color-border-tertiary': 'light-dark(#e0ded6, #3e3e3a)',
  '--font-sans': 'system-ui, sans-serif',
};

type Browser = import('playwright-core').Browser;
type Page = import('playwright-core').Page;
type Locator = import('playwright-core').Locator;
type Frame = import('playwright-core').Frame;
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
  /** Writes docs/views/NAME-THEME.png (NAME-360-THEME.png at 360 px): the n-th frame as the person sees it. */
  screenshot(name: string, theme: Theme, index?: number): Promise<void>;
  /** What the n-th view told the model (ui/update-model-context), and what it sent the strict host too early. */
  record(index?: number): Promise<Recorded>;
  /** axe-core's WCAG 2.2 A and AA violations in the n-th frame, as "rule: element" lines. */
  axe(index?: number): Promise<string[]>;
  /**
   * The n-th frame's first screen, before any scrolling: the selectors whose first element is missing
   * or ends below the frame's height, and whether the rest of the page is reached by scrolling inside the frame.
   */
  firstScreen(selectors: string[], index?: number): Promise<{ height: number; outside: string[]; scrolls: boolean }>;
  /** The elements of the n-th frame that reach past its width (nothing may be cut off). */
  overflow(index?: number): Promise<string[]>;
  /** Removes every view from the page, for the next test on the same page and server. */
  clear(): Promise<void>;
  /** Removes every view and puts `next` (a fresh server and sandbox) behind the page, closing the one before. */
  reset(next: Harness): Promise<void>;
  /** Closes the page and the server, and checks that nothing but the host page was requested. */
  close(): Promise<void>;
}

/** What the test host recorded of one view (views/test-host.ts). */
export interface Recorded {
  told: string[];
  early: string[];
  modes?: string[];
  /** Every tools/call the view sent through the host, with its arguments as sent. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/** The view's calls of `tool` through the host that carried `confirm: true`: what one press of a card may send once. */
export const confirmations = (recorded: Recorded, tool?: string) => recorded.calls.filter((call) => call.arguments.confirm === true && (tool === undefined || call.name === tool));

export interface OpenOptions {
  copies?: number;
  theme?: Theme;
  variables?: Record<string, string>;
  /** "strict": no toolInfo, no tool input, nothing accepted before initialized (views/test-host.ts). */
  host?: 'bridge' | 'strict';
  width?: number;
  /** The host's containerDimensions.maxHeight: the frame grows to it at most, and the view scrolls inside. */
  maxHeight?: number;
  locale?: string;
  timeZone?: string;
  /** The host cancels the call instead of handing over its result. */
  cancelled?: boolean;
  /** Calls the tool through this client instead of the page's own (the view's calls still go through the page's). */
  result?: Awaited<ReturnType<Harness['client']['callTool']>>;
}

export interface Opened {
  result: Awaited<ReturnType<Harness['client']['callTool']>>;
  /** Each copy's frame (Frame objects: a FrameLocator loses its way among many srcdoc frames). */
  frames: Frame[];
  /** The index of the first frame opened. */
  index: number;
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
  let harness = options.harness ?? (await viewHarness());
  const context = await browsing.browser.newContext({
    timezoneId: 'UTC',
    locale: 'en-US',
    viewport: { width: WIDE_WIDTH + 40, height: VIEWPORT_HEIGHT },
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
  // The current harness's client: reset() puts a fresh server behind the same page.
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments: Record<string, unknown> }) => harness.client.callTool(params));
  await page.goto(HOST_URL);
  // The tool list and each page are read once per host page, as a host caches them.
  let listing: Awaited<ReturnType<Harness['client']['listTools']>>['tools'] | undefined;
  const pages = new Map<string, string>();
  return {
    page,
    get harness() {
      return harness;
    },
    requested,
    posts: () => harness.sandbox.requests.filter((request) => request.method === 'POST').length,
    async open(tool, args, { copies = 1, theme = 'light', variables, host = 'bridge', width = CHAT_WIDTH, maxHeight, locale, timeZone, cancelled = false, result: given } = {}) {
      const described = (listing ??= (await harness.client.listTools()).tools).find((candidate) => candidate.name === tool);
      expect(described, `${tool} in tools/list`).toBeDefined();
      const uri = (described!._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      expect(uri, `${tool}'s _meta.ui.resourceUri`).toMatch(/^ui:\/\//);
      let html = pages.get(uri!);
      if (html === undefined) pages.set(uri!, (html = ((await harness.client.readResource({ uri: uri! })).contents[0] as { text: string }).text));
      const result = given ?? (await harness.client.callTool({ name: tool, arguments: args }));
      let index = -1;
      for (let copy = 0; copy < copies; copy += 1) {
        const opened = (await page.evaluate((opening) => (globalThis as unknown as { openView(opening: unknown): Promise<number> }).openView(opening), {
          html,
          tool: described,
          arguments: args,
          ...(cancelled ? {} : { result }),
          host,
          theme,
          variables,
          locale,
          timeZone,
          width,
          maxHeight,
          // The view's clock reads the sandbox's, which stands still: a warning lapses ten minutes ahead, as for a person.
          now: harness.sandbox.clock.now(),
        })) as number;
        if (index < 0) index = opened;
      }
      const frames = [...Array(copies).keys()].map((copy) => frameOf(page, index + copy));
      // Shown: each view has put the result (or the cancellation) on its page.
      for (const frame of frames) {
        await frame.locator('main > .placeholder').waitFor({ state: 'detached' }).catch(async (error: unknown) => {
          throw new Error(`${tool}'s view never showed its result: ${JSON.stringify(await frame.evaluate('document.body.innerText.slice(0, 200)').catch(String))}; ${String(error)}`);
        });
      }
      return { result, index, frames };
    },
    async screenshot(name, theme, index = 0) {
      const directory = fileURLToPath(new URL('../../docs/views/', import.meta.url));
      mkdirSync(directory, { recursive: true });
      const frame = page.locator('iframe').nth(index);
      const width = (await frame.boundingBox())!.width;
      // The frame's height follows the view's size report; two animation frames let it settle.
      await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
      await frame.screenshot({ path: `${directory}${name}${width === NARROW_WIDTH ? '-360' : ''}-${theme}.png`, animations: 'disabled', caret: 'hide' });
    },
    async clear() {
      await page.evaluate('document.querySelectorAll("iframe").forEach((frame) => frame.remove()); window.opened = [];');
      // Frames are counted by position (frameOf): wait until the removed ones are gone from the page's list.
      await expect.poll(() => page.frames().length).toBe(1);
    },
    async reset(next) {
      await page.evaluate('document.querySelectorAll("iframe").forEach((frame) => frame.remove()); window.opened = [];');
      await expect.poll(() => page.frames().length).toBe(1);
      await harness.close();
      harness = next;
    },
    record: (index = 0) => page.evaluate((at) => (globalThis as unknown as { opened: Recorded[] }).opened[at]!, index),
    async axe(index = 0) {
      const frame = frameOf(page, index);
      await frame.evaluate(AXE_SOURCE);
      const violations = (await frame.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA)} }, resultTypes: ['violations'] }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' ') + ' ' + (n.any[0]?.message ?? ''))))`)) as string[];
      return violations;
    },
    async firstScreen(selectors, index = 0) {
      // The frame's height follows the view's size report, up to the host's maxHeight; two animation frames let it settle.
      await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
      return frameOf(page, index).evaluate(`(() => {
        const root = document.scrollingElement;
        const height = root.clientHeight;
        root.scrollTop = 0;
        const outside = ${JSON.stringify(selectors)}.filter((selector) => {
          const element = document.querySelector(selector);
          return !element || element.getBoundingClientRect().bottom > height;
        });
        root.scrollTop = root.scrollHeight;
        const scrolls = root.scrollTop > 0;
        root.scrollTop = 0;
        return { height, outside, scrolls };
      })()`) as Promise<{ height: number; outside: string[]; scrolls: boolean }>;
    },
    overflow: (index = 0) =>
      frameOf(page, index).evaluate(`(() => {
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('body *')].filter((element) => {
          const box = element.getBoundingClientRect();
          return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5);
        });
        return [...(document.documentElement.scrollWidth > width ? ['the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width] : []), ...wide.map((element) => element.tagName.toLowerCase() + '.' + element.className + ' ' + Math.round(element.getBoundingClientRect().right))];
      })()`) as Promise<string[]>,
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
  const frames = page.frames().filter((candidate) => candidate !== page.mainFrame() && !candidate.isDetached());
  return frames[index]!;
}

/**
 * Presses a button twice before any answer: a click, then a click event dispatched to it (which
 * reaches a disabled button's listeners too). Resolves with whether the first press disabled it.
 */
export function doublePress(button: Locator): Promise<boolean> {
  return button.evaluate((element) => {
    (element as unknown as { click(): void }).click();
    const locked = (element as unknown as { disabled: boolean }).disabled;
    element.dispatchEvent(new Event('click', { bubbles: true }));
    return locked;
  });
}

