// Two MCP Apps hosts for the browser tests (test/views/), each showing a view in a sandboxed frame
// (opaque origin, as hosts show it) as wide as a chat column and as tall as the view asks, with
// tools/call forwarded to the test's MCP client through `window.hostCallTool` (exposed by Playwright):
// - "bridge": the extension's own host side, AppBridge, with toolInfo and the tool input as the
//   examples send them;
// - "strict": a host of our own that sends no toolInfo and no tool input (as MCP Inspector does),
//   refuses every message a view sends before ui/notifications/initialized, and records it.
// Both record what a view tells the model (ui/update-model-context). Not shipped.
import { AppBridge, PostMessageTransport, type McpUiStyles } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

interface Opening {
  html: string;
  tool: Tool;
  arguments: Record<string, unknown>;
  /** The tool's result, or undefined to send tool-cancelled instead. */
  result?: CallToolResult;
  host: 'bridge' | 'strict';
  theme: 'light' | 'dark';
  /** Host style variables (`--color-background-primary`, ...), as a host hands them to a view. */
  variables?: Record<string, string>;
  locale?: string;
  timeZone?: string;
  /** The frame's width in CSS pixels: a chat column is narrow. */
  width: number;
  /** The most height the host gives the frame (containerDimensions.maxHeight): the view scrolls inside beyond it. */
  maxHeight?: number;
  /** The time the view's clock reads, standing still (the tests' sandbox time), when given. */
  now?: number;
}

interface Opened {
  /** What the view told the model, in order. */
  told: string[];
  /** Messages the strict host refused because they came before initialized. */
  early: string[];
  /** The display modes the view declared at ui/initialize. */
  modes?: string[];
  /** Every tools/call the view sent through the host, in order, with its arguments as sent. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

declare global {
  interface Window {
    hostCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
    openView(opening: Opening): Promise<number>;
    opened: Opened[];
  }
}

window.opened = [];

/** Opens one view in a new frame and hands it the tool's result once it is initialized; returns the view's index. */
window.openView = async (opening) => {
  document.body.style.margin = '0';
  document.body.style.background = opening.theme === 'dark' ? '#1e1e1e' : '#ffffff';
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('title', opening.tool.name);
  frame.style.cssText = `display:block;border:0;width:${opening.width}px;height:200px;background:transparent`;
  document.body.append(frame);
  const record: Opened = { told: [], early: [], calls: [] };
  window.opened.push(record);
  const context = {
    theme: opening.theme,
    displayMode: 'inline' as const,
    availableDisplayModes: ['inline', 'fullscreen'] as Array<'inline' | 'fullscreen'>,
    containerDimensions: { maxWidth: opening.width, ...(opening.maxHeight ? { maxHeight: opening.maxHeight } : {}) },
    locale: opening.locale ?? 'en-US',
    timeZone: opening.timeZone ?? 'UTC',
    ...(opening.variables ? { styles: { variables: opening.variables as McpUiStyles } } : {}),
  };
  const resize = (height: number | undefined) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(Math.min(height, opening.maxHeight ?? Infinity))}px`;
  };
  const page = opening.now === undefined ? opening : { ...opening, html: opening.html.replace('<head>', `<head><script>${standingClock(opening.now)}</script>`) };
  if (opening.host === 'strict') await strictHost(frame, page, context, record, resize);
  else await bridgeHost(frame, page, context, record, resize);
  return window.opened.length - 1;
};

/**
 * A script that makes the view's clock read `now` and stand still, run before the view's own: the
 * tests' pictures and expiries then follow the sandbox's time. Only the test host adds it.
 */
function standingClock(now: number): string {
  return `(() => { const Real = Date; class Standing extends Real { constructor(...args) { super(...(args.length ? args : [${now}])); } static now() { return ${now}; } } globalThis.Date = Standing; })();`;
}

async function bridgeHost(frame: HTMLIFrameElement, opening: Opening, context: object, record: Opened, resize: (height?: number) => void): Promise<void> {
  const view = frame.contentWindow!;
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {}, updateModelContext: { text: {} } }, { hostContext: { ...context, toolInfo: { tool: opening.tool } } });
  bridge.oncalltool = (params) => {
    record.calls.push({ name: params.name, arguments: params.arguments ?? {} });
    return window.hostCallTool({ name: params.name, arguments: params.arguments ?? {} });
  };
  bridge.onsizechange = ({ height }) => resize(height);
  bridge.onupdatemodelcontext = async (params) => {
    record.told.push(...(params.content ?? []).map((part) => (part.type === 'text' ? part.text : '')));
    return {};
  };
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  // The bridge listens before the page loads: the view sends ui/initialize as soon as it runs.
  await bridge.connect(new PostMessageTransport(view, view));
  frame.srcdoc = opening.html;
  await initialized;
  record.modes = bridge.getAppCapabilities()?.availableDisplayModes;
  await bridge.sendToolInput({ arguments: opening.arguments });
  if (opening.result) await bridge.sendToolResult(opening.result);
  else await bridge.sendToolCancelled({ reason: 'user action' });
}

/** A host written to the spec's letter and no further: no toolInfo, no tool input, nothing accepted before initialized. */
async function strictHost(frame: HTMLIFrameElement, opening: Opening, context: object, record: Opened, resize: (height?: number) => void): Promise<void> {
  const view = frame.contentWindow!;
  let initialized = false;
  let ready: () => void;
  const done = new Promise<void>((resolve) => (ready = resolve));
  const send = (message: object) => view.postMessage({ jsonrpc: '2.0', ...message }, '*');
  window.addEventListener('message', async (event) => {
    const message = event.data as { jsonrpc?: string; id?: number; method?: string; params?: Record<string, unknown> };
    if (event.source !== view || message?.jsonrpc !== '2.0' || !message.method) return;
    const { id, method, params = {} } = message;
    if (method === 'ui/initialize') {
      record.modes = (params.appCapabilities as { availableDisplayModes?: string[] } | undefined)?.availableDisplayModes;
      return send({ id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'strict-host', version: '1.0.0' }, hostCapabilities: { serverTools: {}, updateModelContext: { text: {} } }, hostContext: context } });
    }
    if (method === 'ui/notifications/initialized') {
      initialized = true;
      return ready();
    }
    if (!initialized) {
      record.early.push(method);
      if (id !== undefined) send({ id, error: { code: -32600, message: 'not initialized' } });
      return;
    }
    if (method === 'ui/notifications/size-changed') return resize(params.height as number | undefined);
    if (method === 'tools/call') {
      const call = { name: params.name as string, arguments: (params.arguments as Record<string, unknown> | undefined) ?? {} };
      record.calls.push(call);
      return send({ id, result: await window.hostCallTool(call) });
    }
    if (method === 'ui/update-model-context') {
      record.told.push(...((params.content as Array<{ text?: string }> | undefined) ?? []).map((part) => part.text ?? ''));
      return send({ id, result: {} });
    }
    if (id !== undefined) send({ id, result: method === 'ui/request-display-mode' ? { mode: 'inline' } : {} });
  });
  frame.srcdoc = opening.html;
  await done;
  if (opening.result) send({ method: 'ui/notifications/tool-result', params: opening.result });
  else send({ method: 'ui/notifications/tool-cancelled', params: { reason: 'user action' } });
}
