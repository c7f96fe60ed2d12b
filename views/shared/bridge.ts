// The view's side of MCP Apps (spec 2026-01-26): JSON-RPC 2.0 over postMessage with the host, for
// exactly the messages the views use. The spec needs no SDK for this; the extension's App class would
// bring zod and the whole client protocol (issue 27). The order follows the spec: listen first, then
// ui/initialize, then ui/notifications/initialized, and only then anything else.

export interface HostContext {
  toolInfo?: { id?: unknown; tool: { name: string } };
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
  displayMode?: 'inline' | 'fullscreen' | 'pip';
  availableDisplayModes?: string[];
  containerDimensions?: { height?: number; maxHeight?: number; width?: number; maxWidth?: number };
  locale?: string;
  timeZone?: string;
  [key: string]: unknown;
}

export interface HostCapabilities {
  serverTools?: object;
  updateModelContext?: object;
  [key: string]: unknown;
}

export interface ToolResultLike {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** What the host tells the view, each at most once except context changes. */
export interface Listeners {
  input?(args: Record<string, unknown>): void;
  result?(result: ToolResultLike): void;
  cancelled?(reason: string | undefined): void;
  context?(context: HostContext): void;
  teardown?(): void;
}

export interface Bridge {
  /** The host's context, with every change merged in. */
  readonly context: HostContext;
  readonly capabilities: HostCapabilities;
  /** A request to the host; rejects with the host's error, or after `timeoutMs` without an answer. */
  request<T>(method: string, params: object, timeoutMs: number): Promise<T>;
  notify(method: string, params?: object): void;
}

const PROTOCOL_VERSION = '2026-01-26';
/** How long the view waits for the host to answer ui/initialize before it says so on the page. */
export const INITIALIZE_TIMEOUT_MS = 10_000;

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * Connects to the host: listens before it sends anything, initializes, applies the host's theme,
 * then reports the page's height as it changes. Resolves once the host has the initialized notification.
 */
export async function connect(appInfo: { name: string; version: string }, appCapabilities: object, listeners: Listeners): Promise<Bridge> {
  const pending = new Map<number | string, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let context: HostContext = {};
  let capabilities: HostCapabilities = {};

  const post = (message: object) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = <T>(method: string, params: object, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`no answer to ${method} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const settle = (done: () => void) => {
        clearTimeout(timer);
        pending.delete(id);
        done();
      };
      pending.set(id, { resolve: (value) => settle(() => resolve(value as T)), reject: (error) => settle(() => reject(error)) });
      post({ id, method, params });
    });

  function onRequest(message: Message): void {
    const answer = (result: object) => post({ id: message.id, result });
    if (message.method === 'ping') return answer({});
    if (message.method === 'ui/resource-teardown') {
      listeners.teardown?.();
      return answer({});
    }
    post({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }

  function onNotification(message: Message): void {
    const params = message.params ?? {};
    switch (message.method) {
      case 'ui/notifications/tool-input':
        return listeners.input?.((params.arguments as Record<string, unknown> | undefined) ?? {});
      case 'ui/notifications/tool-result':
        return listeners.result?.(params as ToolResultLike);
      case 'ui/notifications/tool-cancelled':
        return listeners.cancelled?.(typeof params.reason === 'string' ? params.reason : undefined);
      case 'ui/notifications/host-context-changed':
        // Only the keys that changed: merged into what the view knows.
        context = { ...context, ...(params as HostContext) };
        applyContext(context);
        return listeners.context?.(context);
    }
  }

  // A message counts only when the host's window sent it: its origin varies (opaque in a sandbox).
  window.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as Message | null;
    if (event.source !== window.parent || message?.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      const waiting = message.id === undefined ? undefined : pending.get(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result);
    } else if (message.id !== undefined) onRequest(message);
    else onNotification(message);
  });

  const initialized = await request<{ hostContext?: HostContext; hostCapabilities?: HostCapabilities }>(
    'ui/initialize',
    { protocolVersion: PROTOCOL_VERSION, appInfo, appCapabilities },
    INITIALIZE_TIMEOUT_MS,
  );
  context = initialized.hostContext ?? {};
  capabilities = initialized.hostCapabilities ?? {};
  applyContext(context);
  post({ method: 'ui/notifications/initialized', params: {} });
  reportSize((params) => post({ method: 'ui/notifications/size-changed', params }));
  return {
    get context() {
      return context;
    },
    get capabilities() {
      return capabilities;
    },
    request,
    notify: (method, params = {}) => post({ method, params }),
  };
}

/** The host's theme, colour and font variables, and font faces, on the page. */
function applyContext(context: HostContext): void {
  const root = document.documentElement;
  if (context.theme) {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith('--') && typeof value === 'string') root.style.setProperty(name, value);
  }
  const fonts = context.styles?.css?.fonts;
  if (fonts && document.getElementById('host-fonts')?.textContent !== fonts) {
    const style = document.getElementById('host-fonts') ?? document.head.appendChild(document.createElement('style'));
    style.id = 'host-fonts';
    style.textContent = fonts;
  }
}

/** Slowest a size report may lag a change: a frame the browser does not paint (scrolled away) gets no animation frames. */
const SIZE_FALLBACK_MS = 100;

/**
 * Sends the page's height now and on each change, at most once per animation frame, or after
 * SIZE_FALLBACK_MS where the browser runs no animation frames for the view.
 */
function reportSize(send: (size: { height: number }) => void): void {
  let last = -1;
  let queued = false;
  const measure = () => {
    if (!queued) return;
    queued = false;
    // The content's own height: the html element has no fixed height, so this never feeds back on the frame's.
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) send({ height: (last = height) });
  };
  const schedule = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(measure);
    setTimeout(measure, SIZE_FALLBACK_MS);
  };
  new ResizeObserver(schedule).observe(document.documentElement);
  new MutationObserver(schedule).observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  schedule();
  measure();
}
