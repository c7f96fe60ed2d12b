// What every view does with the bridge: connect, hand each tool result (or a cancellation) to the
// view, call tools back through the host, tell the model what the person did, and offer the
// fullscreen mode where the host has it.
import { connect, type Bridge, type ToolResultLike } from './bridge.js';
import { h } from './dom.js';
import { setFormat } from './format.js';

export type { ToolResultLike } from './bridge.js';

/** Where the server puts a result's view data (src/result.ts VIEW_META_KEY). */
const VIEW_META_KEY = 'app-management/view';
/** How long a call through the host may take: a gated call can wait on an approval form and a slow service. */
const CALL_TIMEOUT_MS = 5 * 60_000;
/** The User Timing mark of the moment a result's content is first on screen. */
const CONTENT_MARK = 'app-management/content';
/** Other requests to the host answer at once or not at all. */
const REQUEST_TIMEOUT_MS = 10_000;

/** The result's text, without the next step written for the model. */
export const textOf = (result: ToolResultLike): string =>
  (result.content ?? [])
    .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('\n')
    .replace(/\nNext: [\s\S]*$/, '');

/** The facts the model also reads. */
export const factsOf = (result: ToolResultLike): Record<string, unknown> => result.structuredContent ?? {};

/** What the server sent for the view alone: titles, captions, the warning's lines and arguments. */
export const viewOf = (result: ToolResultLike): Record<string, unknown> => (result._meta?.[VIEW_META_KEY] as Record<string, unknown> | undefined) ?? {};

export interface View {
  /** The tool this view was opened for, when the host says (toolInfo is optional). */
  toolName(): string | undefined;
  /** That call's arguments: from the result's view data, else the host's tool input (optional in the spec). */
  toolArguments(): Record<string, unknown> | undefined;
  /** Calls a tool through the host; no answer, or an error instead of one, becomes a result saying the outcome is unknown. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResultLike>;
  /** Tells the model what the person did here, for its next turn, where the host takes such updates. */
  tell(text: string): void;
  /** A button that shows the view fullscreen, where the host offers it; null otherwise. */
  fullscreenButton(label?: string): HTMLElement | null;
}

export interface Handlers {
  result(result: ToolResultLike, view: View): void;
  /** The call was cancelled before it answered: the view must not keep waiting. */
  cancelled?(reason: string | undefined, view: View): void;
}

/** Connects a view; `fullscreen` says whether it offers that mode (long views do). */
export async function startView(name: string, handlers: Handlers, { fullscreen = false } = {}): Promise<View> {
  let args: Record<string, unknown> | undefined;
  let view: View | undefined;
  // A server scoped to one app takes no app_id (src/apps.ts viewArguments): its view data's arguments leave it out.
  let scoped = false;
  const fromResult = (result: ToolResultLike) => {
    const shown = viewOf(result).arguments;
    if (typeof shown !== 'object' || shown === null) return;
    args = shown as Record<string, unknown>;
    scoped = !('app_id' in args);
  };
  // Anything the host sends before connect() returns waits here, so nothing that comes once is lost.
  const early: Array<() => void> = [];
  const whenReady = (run: (ready: View) => void) => (view ? run(view) : early.push(() => run(view!)));
  let bridge: Bridge;
  try {
    bridge = await connect({ name: `app-management-${name}`, version: '1.0.0' }, { availableDisplayModes: fullscreen ? ['inline', 'fullscreen'] : ['inline'] }, {
      input: (input) => (args = input),
      result: (result) =>
        whenReady((ready) => {
          fromResult(result);
          handlers.result(result, ready);
          fit();
          // When the first content reaches the screen (the next frame): npm run bench:views reads it (bench/views.mjs).
          if (performance.getEntriesByName(CONTENT_MARK).length === 0) requestAnimationFrame(() => performance.mark(CONTENT_MARK));
        }),
      cancelled: (reason) => whenReady((ready) => handlers.cancelled?.(reason, ready)),
      context: (context) => {
        setFormat(context);
        fit();
      },
    });
  } catch (error) {
    document.querySelector('main')?.replaceChildren(h('p', { class: 'muted' }, `The host did not connect this view (${error instanceof Error ? error.message : String(error)}). The chat has the same answer as text.`));
    throw error;
  }
  setFormat(bridge.context);
  view = {
    toolName: () => bridge.context.toolInfo?.tool.name,
    toolArguments: () => args,
    async call(tool, toolArgs) {
      const { app_id: appId, ...rest } = toolArgs;
      const sent = scoped ? rest : { ...(appId === undefined ? {} : { app_id: appId }), ...rest };
      try {
        return await bridge.request<ToolResultLike>('tools/call', { name: tool, arguments: sent }, CALL_TIMEOUT_MS);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { isError: true, content: [{ type: 'text', text: `OUTCOME UNKNOWN: the host gave no answer (${reason}). Check whether it took effect before trying again.` }] };
      }
    },
    tell(text) {
      if (!bridge.capabilities.updateModelContext) return;
      bridge.request('ui/update-model-context', { content: [{ type: 'text', text }] }, REQUEST_TIMEOUT_MS).catch(() => undefined);
    },
    fullscreenButton(label = 'Open full screen') {
      const available = bridge.context.availableDisplayModes ?? [];
      if (!fullscreen || !available.includes('fullscreen') || bridge.context.displayMode === 'fullscreen') return null;
      const button = h('button', { type: 'button', class: 'fullscreen' }, label);
      button.addEventListener('click', () => {
        void bridge.request<{ mode?: string }>('ui/request-display-mode', { mode: 'fullscreen' }, REQUEST_TIMEOUT_MS).then(
          (answer) => {
            if (answer?.mode === 'fullscreen') button.remove();
          },
          () => undefined,
        );
      });
      return button;
    },
  };
  /**
   * The first screen within the host's maxHeight (hostContext.containerDimensions): on a page taller
   * than that, what can wait folds (details.fold) and the fullscreen button is offered under the heading;
   * the rest scrolls inside the frame.
   */
  function fit(): void {
    const max = bridge?.context.containerDimensions?.maxHeight;
    if (!view || !max || document.documentElement.getBoundingClientRect().height <= max) return;
    for (const fold of document.querySelectorAll<HTMLDetailsElement>('details.fold[open]')) fold.open = false;
    const button = document.querySelector('.fullscreen') ? null : view.fullscreenButton();
    if (button) document.querySelector('main h1')?.after(button);
  }
  for (const run of early.splice(0)) run();
  return view;
}
